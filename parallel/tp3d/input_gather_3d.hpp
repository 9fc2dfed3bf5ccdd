/// @file
/// InputGather3D: a 3D linear's input, all-gathered once for every linear that reads it.
#pragma once

#include "device/device.hpp"
#include "scheme/execution_policy.hpp"
#include "tp3d/linear_roles.hpp"

namespace tplab::tp3d {

/// The input side of Linear3D, in the notation of that class (q ranks per axis):
///
///   forward:  X[m/q^2, in/q] -> X~[m/q, in/q] = all_gather(X over the input group)
///   backward: dX~[m/q, in/q] -> dX[m/q^2, in/q] = reduce_scatter(dX~ over the input group)
///
/// It is a class of its own because Q, K and V read the same X: gathering it once for all
/// three, and summing their three dX~ before one reduce-scatter, moves a third of the data
/// (as Megatron's operator f does for its column-parallel layers).
///
/// The memory trade: X~ is q times larger than X. By default it is kept from forward for the
/// weight gradients of backward; with the policy's `regather` only X is kept and X~ is gathered
/// again in backward, which costs one more all-gather.
class InputGather3D {
 public:
  /// Gathers for layers in `roles`; with `policy.regather`, again in backward instead of
  /// keeping it.
  InputGather3D(Device& device, const Grid3D& grid, LinearRoles roles, ExecutionPolicy policy = {});

  /// X -> X~; keeps X~, or X alone when regathering.
  Tensor forward(const Tensor& x);
  /// X~ for backward's weight gradients: the copy kept by forward, or X gathered again.
  Tensor gathered_for_backward();
  /// dX~ (summed over the linears that read X) -> dX.
  Tensor backward(const Tensor& dx_gathered);
  /// Lets go of the kept input.
  void forget() { kept_ = Tensor(); }

 private:
  Tensor gather(const Tensor& x);

  Device& device_;
  Comm& input_group_;
  bool regather_;
  Tensor kept_;  // X~, or X when regathering
};

}  // namespace tplab::tp3d
