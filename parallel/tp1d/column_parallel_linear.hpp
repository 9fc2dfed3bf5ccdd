/// @file
/// ColumnParallelLinear: Y = X W + b with W split by columns over t ranks. The operator f (or
/// its sequence-parallel form) that stands before it is in conjugate_operators.hpp.
#pragma once

#include "device/device.hpp"

namespace tplab::tp1d {

/// Rank r holds W_r = W[:, r*out/t : (r+1)*out/t] and the matching bias slice b_r.
///
///   forward:  X[m, in] (replicated) -> Y_r[m, out/t] = X W_r + b_r        no communication
///   backward: dY_r -> the partial dX_r = dY_r W_r^T, dW_r = X^T dY_r, db_r = sum_rows dY_r
///
/// The layer keeps nothing: its input X is kept by the ColumnInputRegion before it (f or its
/// sequence-parallel form), once for all column layers that share it (Q, K and V), and handed
/// back to weight_grads(). The partial dX_r is returned as is: the region sums it over ranks,
/// again once for all of them, and the split into input_grad() and weight_grads() lets that
/// sum travel while the weight gradients are computed.
class ColumnParallelLinear {
 public:
  /// A layer holding this rank's weight and bias shards (see the class comment).
  ColumnParallelLinear(Device& device, Tensor weight, Tensor bias);

  /// Forward: X[m, in] -> Y_r[m, out/t].
  Tensor apply(const Tensor& x) const;
  /// The partial input gradient dY_r W_r^T [m, in], this rank's columns' share of dX.
  Tensor input_grad(const Tensor& dy) const;
  /// The weight and bias gradients from the whole input X [m, in] and dY_r [m, out/t].
  void weight_grads(const Tensor& x, const Tensor& dy);

  /// The weight gradient shard (valid after weight_grads).
  const Tensor& weight_grad() const { return weight_grad_; }
  /// The bias gradient shard (valid after weight_grads).
  const Tensor& bias_grad() const { return bias_grad_; }

 private:
  Device& device_;
  Tensor weight_, bias_;
  Tensor weight_grad_, bias_grad_;
};

}  // namespace tplab::tp1d
