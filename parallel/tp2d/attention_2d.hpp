/// @file
/// Attention2D: the attention half of an Optimus block on a q x q mesh.
#pragma once

#include "grid/grid_2d.hpp"
#include "layers/causal_attention.hpp"
#include "layers/sublayer.hpp"
#include "scheme/execution_policy.hpp"
#include "tp2d/linear_2d.hpp"

namespace tplab::tp2d {

/// A(i,j) [m/q, h/q] -> Q, K, V by SUMMA, each [m/q, h/q]: rank (i, j) holds the sequences of
/// token block i and the heads of feature block j whole -> causal attention, local -> output
/// projection by SUMMA -> [m/q, h/q]. All communication is inside the four Linear2D.
class Attention2D final : public Sublayer {
 public:
  /// `batch`: the sequences in this rank's token block; `heads`: the heads in its feature block.
  Attention2D(Device& device, Grid2D& grid, std::int64_t batch, std::int64_t heads,
              std::int64_t head_dim, const TensorMap& parameters, ExecutionPolicy policy = {},
              AttentionDropout dropout = {}, Recompute recompute = Recompute::none);

  Tensor forward(const Tensor& a) override;
  Tensor backward(const Tensor& dout) override;
  void collect_gradients(TensorMap& out) const override;
  void forget() override;

 private:
  Device& device_;
  Linear2D query_, key_, value_;
  CausalAttention core_;
  Linear2D projection_;
};

}  // namespace tplab::tp2d
