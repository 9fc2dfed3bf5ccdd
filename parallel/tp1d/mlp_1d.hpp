/// @file
/// Mlp1D: the MLP half of a Megatron block.
#pragma once

#include "comm/comm.hpp"
#include "layers/activation.hpp"
#include "layers/sublayer.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/conjugate_operators.hpp"
#include "tp1d/row_parallel_linear.hpp"

namespace tplab::tp1d {

/// X[m, h] (replicated) -> f -> fc1 column-parallel [m, 4h/t] -> GELU, local -> fc2
/// row-parallel (g) -> [m, h] replicated. Splitting fc1 by columns makes GELU local: each rank
/// holds whole elements of fc1's output, never partial sums.
///
/// With sequence parallelism X and the output are this rank's tokens [m/t, h]: f all-gathers
/// X and fc2 reduce-scatters its output (GatherFromSequenceParallelRegion,
/// ReduceScatterToSequenceParallelRegion).
class Mlp1D final : public Sublayer {
 public:
  /// The sublayer of this rank, from its parameter shards; its operators are picked here.
  Mlp1D(Device& device, Comm& tp, const TensorMap& parameters, Activation activation,
        ExecutionPolicy policy = {}, Mode1D mode = {});

  Tensor forward(const Tensor& x) override;
  Tensor backward(const Tensor& dout) override;
  void collect_gradients(TensorMap& out) const override;
  void forget() override;

 private:
  Device& device_;
  Activation activation_;
  std::unique_ptr<ColumnInputRegion> input_;  // f, or its sequence-parallel form
  ColumnParallelLinear fc1_;
  RowParallelLinear fc2_;
  Tensor hidden_;  // fc1's output, kept for GELU's backward
};

}  // namespace tplab::tp1d
