/// @file
/// SublayerInput: operator f of a 1D sublayer, or its sequence-parallel form, and the input
/// its column-parallel linears need again in backward.
#pragma once

#include <functional>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "tp1d/mode_1d.hpp"

namespace tplab::tp1d {

/// What stands between a sublayer's input and its column-parallel linears (Q, K, V; or fc1).
///
///   1D:  forward  X[m, h] (replicated) passes unchanged and is kept
///        backward the partial dX of the linears is all-reduced                     (f)
///   SP:  forward  X_r[m/t, h] (this rank's tokens) is kept; all_gather -> X[m, h]
///        backward X is all-gathered again from the kept shard for the weight gradients,
///                 and the partial dX [m, h] is reduce-scattered to dX_r[m/t, h]
///
/// Keeping the shard and gathering it again costs one all-gather of [m, h] per sublayer in
/// backward and saves (t-1)/t of the [m, h] input (Megatron does the same). With overlap, the
/// re-gather runs while the partial dX is computed, and the sum of dX while the weight
/// gradients are.
class SublayerInput {
 public:
  /// f (or its SP form) over the group `tp`.
  SublayerInput(Device& device, Comm& tp, Mode1D mode);

  /// This rank's input -> the whole input [m, h] the column-parallel linears read.
  Tensor forward(const Tensor& x);
  /// Runs the backward of the column-parallel linears: `input_grad()` returns the sum of their
  /// partial dX [m, h], `weight_grads(X)` computes their weight and bias gradients from the
  /// whole input X [m, h]. Returns dX in the layout of forward's input.
  Tensor backward(const std::function<Tensor()>& input_grad,
                  const std::function<void(const Tensor&)>& weight_grads);
  /// Bytes kept from forward for backward: the input, whole (1D) or this rank's tokens (SP).
  std::size_t saved_bytes() const { return kept_.bytes(); }

 private:
  CommRequest gather(const Tensor& shard, Tensor& full);

  Device& device_;
  Comm& tp_;
  Mode1D mode_;
  Tensor kept_;
};

}  // namespace tplab::tp1d
