/// @file
/// Attention1D: the attention half of a Megatron block.
#pragma once

#include "comm/comm.hpp"
#include "layers/causal_attention.hpp"
#include "layers/sublayer.hpp"
#include "scheme/block_shape.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/conjugate_operators.hpp"
#include "tp1d/row_parallel_linear.hpp"

namespace tplab::tp1d {

/// A[m, h] (replicated) -> f -> Q, K, V column-parallel: rank r owns heads r*n/t..(r+1)*n/t-1
/// whole -> causal attention, local -> output projection row-parallel (g) -> [m, h] replicated.
/// One all-reduce forward (g in the projection), one backward (f, for Q, K and V together).
///
/// With sequence parallelism A and the output are this rank's tokens [m/t, h]: f all-gathers
/// A and the projection reduce-scatters its output (GatherFromSequenceParallelRegion,
/// ReduceScatterToSequenceParallelRegion); attention itself still sees every token of this
/// rank's heads.
class Attention1D final : public Sublayer {
 public:
  /// The sublayer of this rank, from its parameter shards; its operators are picked here. The
  /// attention core drops its probabilities as `dropout` says and recomputes them as
  /// `recompute` says.
  Attention1D(Device& device, Comm& tp, const BlockShape& shape, const TensorMap& parameters,
              ExecutionPolicy policy = {}, Mode1D mode = {}, AttentionDropout dropout = {},
              Recompute recompute = Recompute::none);

  Tensor forward(const Tensor& a) override;
  Tensor backward(const Tensor& dout) override;
  void collect_gradients(TensorMap& out) const override;
  void forget() override;

 private:
  Device& device_;
  std::unique_ptr<ColumnInputRegion> input_;  // f, or its sequence-parallel form
  ColumnParallelLinear query_, key_, value_;
  CausalAttention core_;
  RowParallelLinear projection_;
};

}  // namespace tplab::tp1d
