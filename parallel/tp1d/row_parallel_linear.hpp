/// @file
/// RowParallelLinear: Y = X W + b with W split by rows over t ranks, ending in g or its
/// sequence-parallel form (conjugate_operators.hpp).
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp1d/conjugate_operators.hpp"
#include "tp1d/mode_1d.hpp"

namespace tplab::tp1d {

/// Rank r holds W_r = W[r*in/t : (r+1)*in/t, :] and the whole bias b (replicated).
///
///   forward:  X_r[m, in/t] -> Y = g(sum_r X_r W_r) + b      one all-reduce of [m, out] (g)
///   backward: dY (replicated) -> dX_r = dY W_r^T, dW_r = X_r^T dY, db = sum_rows dY
///
/// The bias is added after the all-reduce, so it is counted once, not t times. Its gradient
/// is the same on every rank, because dY is replicated.
///
/// With sequence parallelism (Mode1D) g is replaced by its sequence-parallel form,
/// ReduceScatterToSequenceParallelRegion, and the output is this rank's tokens only:
///   forward:  Y_r[m/t, out] = reduce_scatter(X_r W_r) + b
///   backward: dY = all_gather(dY_r) [m, out]; dX_r, dW_r as above; db = all_reduce of
///             sum_rows dY_r, since each rank sees only its tokens' share of the bias gradient
class RowParallelLinear {
 public:
  /// A layer holding this rank's weight and bias shards (see the class comment), ending in g
  /// or, with sequence parallelism, in its sequence-parallel form.
  RowParallelLinear(Device& device, Comm& tp, Tensor weight, Tensor bias, Mode1D mode = {},
                    ExecutionPolicy policy = {});

  /// This rank's input shard -> its output shard; keeps the input for backward.
  Tensor forward(const Tensor& x);
  /// Output gradient shard -> input gradient shard; computes the weight and bias gradients.
  Tensor backward(const Tensor& dy);

  /// The weight gradient shard (valid after backward).
  const Tensor& weight_grad() const { return weight_grad_; }
  /// The bias gradient shard (valid after backward).
  const Tensor& bias_grad() const { return bias_grad_; }
  /// Lets go of the kept input.
  void forget() { x_ = Tensor(); }

 private:
  Device& device_;
  std::unique_ptr<RowOutputRegion> output_;  // g, or its sequence-parallel form
  Tensor weight_, bias_;
  Tensor x_;
  Tensor weight_grad_, bias_grad_;
};

}  // namespace tplab::tp1d
