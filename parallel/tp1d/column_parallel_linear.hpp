/// @file
/// ColumnParallelLinear: Y = X W + b with W split by columns over t ranks, and InputOperator,
/// the f (or its sequence-parallel form) that stands before it.
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp1d/mode_1d.hpp"

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

/// What stands between a sublayer's input and its column-parallel linears (Q, K, V; or fc1),
/// picked once when the sublayer is built (make_input_operator):
///
///   f:   forward  X[m, h] (replicated) passes unchanged and is kept
///        backward the partial dX [m, h] of the linears is all-reduced
///   SP:  forward  X_r[m/t, h] (this rank's tokens) is kept; all_gather -> X[m, h]
///        backward X is all-gathered again from the kept shard for the weight gradients,
///                 and the partial dX [m, h] is reduce-scattered to dX_r[m/t, h]
///
/// Keeping the shard and gathering it again costs one all-gather of [m, h] per sublayer in
/// backward and saves (t-1)/t of the [m, h] input (Megatron does the same). Backward's
/// collectives follow the ExecutionPolicy: with overlap they are started and return at once.
class InputOperator {
 public:
  virtual ~InputOperator() = default;
  /// This rank's input -> the whole input X [m, h] the column-parallel linears read.
  virtual Tensor forward(const Tensor& x) = 0;
  /// X [m, h] again, for the linears' weight gradients: the kept input, or the kept shard
  /// all-gathered (SP).
  virtual PendingTensor input_for_backward() = 0;
  /// The linears' partial dX [m, h] -> dX summed over the group, in forward's input layout.
  virtual PendingTensor backward(Tensor partial) = 0;
  /// Bytes kept from forward for backward: the input, whole (f) or this rank's tokens (SP).
  virtual std::size_t saved_bytes() const = 0;
};

/// f, or the sequence-parallel all-gather when `mode` says so, over the group `tp`.
std::unique_ptr<InputOperator> make_input_operator(Device& device, Comm& tp, Mode1D mode,
                                                   ExecutionPolicy policy);

}  // namespace tplab::tp1d
