#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

// ---- f and its sequence-parallel form

CopyToTensorParallelRegion::CopyToTensorParallelRegion(Comm& tp, ExecutionPolicy policy)
    : tp_(tp), policy_(policy) {}

Tensor CopyToTensorParallelRegion::forward(const Tensor& x) {
  kept_ = x;
  return x;  // [m, h], replicated
}

PendingTensor CopyToTensorParallelRegion::input_for_backward() {
  return {.tensor = kept_};
}

PendingTensor CopyToTensorParallelRegion::backward(Tensor partial) {
  PendingTensor dx{.tensor = std::move(partial)};
  dx.arrival = policy_.all_reduce(tp_, dx.tensor);  // [m, h] summed over the group
  return dx;
}

GatherFromSequenceParallelRegion::GatherFromSequenceParallelRegion(Device& device, Comm& tp,
                                                                   ExecutionPolicy policy)
    : device_(device), tp_(tp), policy_(policy) {}

Tensor GatherFromSequenceParallelRegion::forward(const Tensor& x) {
  kept_ = x;
  Tensor full = device_.empty({x.rows() * tp_.size(), x.cols()}, x.dtype());
  // Blocking: the column-parallel products that follow read all of X at once, and nothing
  // before them is left to compute while it travels.
  tp_.all_gather(x, full);  // [m/t, h] -> [m, h], the ranks' tokens in rank order
  return full;
}

PendingTensor GatherFromSequenceParallelRegion::input_for_backward() {
  PendingTensor x{.tensor =
                      device_.empty({kept_.rows() * tp_.size(), kept_.cols()}, kept_.dtype())};
  x.arrival = policy_.all_gather(tp_, kept_, x.tensor);  // [m/t, h] -> [m, h]
  return x;
}

PendingTensor GatherFromSequenceParallelRegion::backward(Tensor partial) {
  // partial is read until the reduce-scatter completes: dx holds it until then
  PendingTensor dx{.tensor = device_.empty(kept_.extents(), kept_.dtype()),
                   .input = std::move(partial)};
  // summed over ranks, this rank's tokens: [m, h] -> [m/t, h]
  dx.arrival = policy_.reduce_scatter(tp_, dx.input, dx.tensor);
  return dx;
}

std::unique_ptr<ColumnInputRegion> make_column_input_region(Device& device, Comm& tp, Mode1D mode,
                                                            ExecutionPolicy policy) {
  if (mode.sequence_parallel) {
    return std::make_unique<GatherFromSequenceParallelRegion>(device, tp, policy);
  }
  return std::make_unique<CopyToTensorParallelRegion>(tp, policy);
}

// ---- g and its sequence-parallel form

Tensor ReduceFromTensorParallelRegion::forward(Tensor partial) {
  // Blocking: the bias is added to the sum at once, and the sublayer's output is the sum.
  tp_.all_reduce(partial);  // [m, out] summed over the group
  return partial;
}

ReduceScatterToSequenceParallelRegion::ReduceScatterToSequenceParallelRegion(Device& device,
                                                                             Comm& tp,
                                                                             ExecutionPolicy policy)
    : device_(device), tp_(tp), policy_(policy) {}

Tensor ReduceScatterToSequenceParallelRegion::forward(Tensor partial) {
  Tensor y = device_.empty({partial.rows() / tp_.size(), partial.cols()}, partial.dtype());
  // Blocking: the bias is added to the sum at once, and the sublayer's output is the sum.
  tp_.reduce_scatter(partial, y);  // summed over ranks, this rank's tokens: [m/t, out]
  return y;
}

Tensor ReduceScatterToSequenceParallelRegion::backward(const Tensor& dy) {
  Tensor whole = device_.empty({dy.rows() * tp_.size(), dy.cols()}, dy.dtype());
  // Blocking: both products of the row-parallel backward read all of dY.
  tp_.all_gather(dy, whole);  // [m/t, out] -> [m, out]
  return whole;
}

CommRequest ReduceScatterToSequenceParallelRegion::sum_bias_grad(Tensor& bias_grad) {
  return policy_.all_reduce(tp_, bias_grad);  // each rank summed its own tokens only
}

std::unique_ptr<RowOutputRegion> make_row_output_region(Device& device, Comm& tp, Mode1D mode,
                                                        ExecutionPolicy policy) {
  if (mode.sequence_parallel) {
    return std::make_unique<ReduceScatterToSequenceParallelRegion>(device, tp, policy);
  }
  return std::make_unique<ReduceFromTensorParallelRegion>(tp);
}

}  // namespace tplab::tp1d
