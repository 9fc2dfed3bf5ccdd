/// @file
/// ColumnParallelLinear: Y = X W + b with W split by columns over t ranks.
#pragma once

#include "device/device.hpp"

namespace tplab::tp1d {

/// Rank r holds W_r = W[:, r*out/t : (r+1)*out/t] and the matching bias slice b_r.
///
///   forward:  X[m, in] (replicated) -> Y_r[m, out/t] = X W_r + b_r        no communication
///   backward: dY_r -> dW_r = X^T dY_r, db_r = sum_rows dY_r, and the partial dX_r = dY_r W_r^T
///
/// The partial dX_r is returned as is: the caller sums it over ranks with operator f, once for
/// all column layers that share an input (Q, K and V), instead of once per layer. A sublayer
/// whose InputOperator keeps the input uses apply(), input_grad() and weight_grads(), which
/// let it sum dX while the weight gradients are computed.
class ColumnParallelLinear {
 public:
  /// A layer holding this rank\'s weight and bias shards (see the class comment).
  ColumnParallelLinear(Device& device, Tensor weight, Tensor bias);

  /// This rank's input shard -> its output shard; keeps the input for backward.
  Tensor forward(const Tensor& x);
  /// Output gradient shard -> input gradient shard; computes the weight and bias gradients.
  Tensor backward(const Tensor& dy);

  /// forward() without keeping the input: X[m, in] -> Y_r[m, out/t].
  Tensor apply(const Tensor& x) const;
  /// The partial input gradient dY_r W_r^T [m, in], this rank's columns' share of dX.
  Tensor input_grad(const Tensor& dy) const;
  /// The weight and bias gradients from the whole input X [m, in] and dY_r [m, out/t].
  void weight_grads(const Tensor& x, const Tensor& dy);

  /// The weight gradient shard (valid after backward).
  const Tensor& weight_grad() const { return weight_grad_; }
  /// The bias gradient shard (valid after backward).
  const Tensor& bias_grad() const { return bias_grad_; }
  /// Bytes kept from forward for backward: the input X (none after apply()).
  std::size_t saved_bytes() const { return x_.bytes(); }

 private:
  Device& device_;
  Tensor weight_, bias_;
  Tensor x_;
  Tensor weight_grad_, bias_grad_;
};

}  // namespace tplab::tp1d
