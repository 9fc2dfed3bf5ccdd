/// @file
/// Attention3D: the attention half of a block on the q x q x q cube.
#pragma once

#include "layers/sublayer.hpp"
#include "layers/token_block_attention.hpp"
#include "scheme/block_shape.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_3d.hpp"

namespace tplab::tp3d {

/// On rank (i, j, k), with n heads of d = h/n features:
///
///   A[m/q^2, h/q]         token block j*q + i, feature block k   (the block's layout)
///   Q, K, V[m/q^2, h/q]   token block j*q + k, feature block i = heads i*n/q .. (i+1)*n/q - 1
///   ctx[m/q^2, h/q]       the same layout as Q
///   out[m/q^2, h/q]       token block j*q + i, feature block k   (the block's layout again)
///
///   A -> all_gather over input, once for Q, K and V -> Q, K, V (Linear3D, kReadsBlockLayout)
///     -> causal attention on whole heads (TokenBlockAttention over output_weight, the q^2
///        ranks with the same heads, in token order) -> ctx
///     -> output projection (Linear3D, kWritesBlockLayout) -> out
///
/// Because a linear swaps the axes that cut tokens and features, Q, K and V come out with
/// their features cut along i: each rank holds n/q whole heads (heads are contiguous columns),
/// so attention needs no communication as long as each rank's m/q^2 tokens are whole
/// sequences. When they are not, TokenBlockAttention all-gathers K and V over output_weight.
/// Backward sums the three dA~ of Q, K and V before one reduce-scatter over input.
class Attention3D final : public Sublayer {
 public:
  /// The sublayer of this rank, from its parameter shards; the attention core drops its
  /// probabilities as `dropout` says (none when null) and recomputes them as `recompute` says.
  Attention3D(Device& device, const Grid3D& grid, const BlockShape& shape,
              const TensorMap& parameters, ExecutionPolicy policy,
              std::shared_ptr<BlockDropout> dropout = nullptr,
              Recompute recompute = Recompute::none);

  Tensor forward(const Tensor& a) override;
  Tensor backward(const Tensor& dout) override;
  void collect_gradients(TensorMap& out) const override;
  void forget() override;

 private:
  Device& device_;
  InputGather3D input_;
  Linear3D query_, key_, value_;
  TokenBlockAttention core_;
  InputGather3D projection_input_;
  Linear3D projection_;
};

}  // namespace tplab::tp3d
