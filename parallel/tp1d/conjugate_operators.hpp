/// @file
/// Megatron's conjugate operators f and g (Shoeybi et al. 2019, section 3). The operators a 1D
/// sublayer picks once, f or g or their sequence-parallel forms, are InputOperator
/// (column_parallel_linear.hpp) and OutputOperator (row_parallel_linear.hpp).
#pragma once

#include "comm/comm.hpp"
#include "scheme/execution_policy.hpp"

namespace tplab::tp1d {

/// f: identity forward, all-reduce backward. It stands before a column-parallel layer, whose
/// input is replicated: each rank's dX is only its own columns' share, so the shares are summed.
struct OperatorF {
  /// Forward: the input passes unchanged.
  static const Tensor& forward(const Tensor& x) { return x; }
  /// Backward: the partial input gradients are summed over the group.
  static void backward(Comm& tp, Tensor& dx) { tp.all_reduce(dx); }
  /// Backward, started when `policy` overlaps: dx holds the sum once the request completes.
  static CommRequest backward(Comm& tp, Tensor& dx, const ExecutionPolicy& policy) {
    return policy.all_reduce(tp, dx);
  }
};

/// g: all-reduce forward, identity backward. It stands after a row-parallel layer, whose
/// ranks each hold a partial sum of the output; the output gradient is already replicated.
struct OperatorG {
  /// Forward: the partial outputs are summed over the group.
  static void forward(Comm& tp, Tensor& y) { tp.all_reduce(y); }
  /// Backward: the output gradient passes unchanged.
  static const Tensor& backward(const Tensor& dy) { return dy; }
};

}  // namespace tplab::tp1d
