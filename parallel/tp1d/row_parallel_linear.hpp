/// @file
/// RowParallelLinear: Y = X W + b with W split by rows over t ranks, ending in OutputOperator,
/// g or its sequence-parallel form.
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp1d/mode_1d.hpp"

namespace tplab::tp1d {

/// What stands after a row-parallel linear's product, picked once (make_output_operator):
///
///   g:   forward  the partial Y [m, out] is all-reduced; backward dY [m, out] passes unchanged
///   SP:  forward  the partial Y [m, out] is reduce-scattered to Y_r [m/t, out];
///        backward dY_r [m/t, out] is all-gathered to dY [m, out], and the bias gradient, a
///                 sum over this rank's tokens only, is all-reduced
class OutputOperator {
 public:
  virtual ~OutputOperator() = default;
  /// The partial output [m, out] -> the summed output in the block's layout.
  virtual Tensor forward(Tensor partial) = 0;
  /// The output gradient in the block's layout -> dY [m, out], whole.
  virtual Tensor backward(const Tensor& dy) = 0;
  /// Completes the bias gradient (the column sums of dY in the block's layout): nothing to do
  /// after g; after SP an all-reduce, started when the policy overlaps.
  virtual CommRequest sum_bias_grad(Tensor& bias_grad) = 0;
};

/// g, or the sequence-parallel reduce-scatter when `mode` says so, over the group `tp`.
std::unique_ptr<OutputOperator> make_output_operator(Device& device, Comm& tp, Mode1D mode,
                                                     ExecutionPolicy policy);

/// Rank r holds W_r = W[r*in/t : (r+1)*in/t, :] and the whole bias b (replicated).
///
///   forward:  X_r[m, in/t] -> Y = g(sum_r X_r W_r) + b      one all-reduce of [m, out] (g)
///   backward: dY (replicated) -> dX_r = dY W_r^T, dW_r = X_r^T dY, db = sum_rows dY
///
/// The bias is added after the all-reduce, so it is counted once, not t times. Its gradient
/// is the same on every rank, because dY is replicated.
///
/// With sequence parallelism (Mode1D) g is replaced by its sequence-parallel form (see
/// OutputOperator), and the output is this rank's tokens only:
///   forward:  Y_r[m/t, out] = reduce_scatter(X_r W_r) + b
///   backward: dY = all_gather(dY_r) [m, out]; dX_r, dW_r as above; db = all_reduce of
///             sum_rows dY_r, since each rank sees only its tokens' share of the bias gradient
class RowParallelLinear {
 public:
  /// A layer holding this rank\'s weight and bias shards (see the class comment), ending in g
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
  /// Bytes kept from forward for backward: the input X.
  std::size_t saved_bytes() const { return x_.bytes(); }

 private:
  Device& device_;
  std::unique_ptr<OutputOperator> output_;  // g, or its sequence-parallel form
  Tensor weight_, bias_;
  Tensor x_;
  Tensor weight_grad_, bias_grad_;
};

}  // namespace tplab::tp1d
