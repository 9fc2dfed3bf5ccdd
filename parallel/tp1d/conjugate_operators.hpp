/// @file
/// The operators of 1D tensor parallelism: Megatron's conjugate f and g (Shoeybi et al. 2019,
/// section 3) and their sequence-parallel forms (Korthikanti et al. 2022, section 4.2.2).
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp1d/mode_1d.hpp"

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

/// f, or the sequence-parallel all-gather when `mode` says so, over the group `tp`.
std::unique_ptr<InputOperator> make_input_operator(Device& device, Comm& tp, Mode1D mode,
                                                   ExecutionPolicy policy);
/// g, or the sequence-parallel reduce-scatter when `mode` says so, over the group `tp`.
std::unique_ptr<OutputOperator> make_output_operator(Device& device, Comm& tp, Mode1D mode,
                                                     ExecutionPolicy policy);

}  // namespace tplab::tp1d
