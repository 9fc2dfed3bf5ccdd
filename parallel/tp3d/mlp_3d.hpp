/// @file
/// Mlp3D: the MLP half of a block on the q x q x q cube.
#pragma once

#include "layers/activation.hpp"
#include "layers/sublayer.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_3d.hpp"

namespace tplab::tp3d {

/// On rank (i, j, k):
///
///   X[m/q^2, h/q]     token block j*q + i, feature block k   (the block's layout)
///   H[m/q^2, 4h/q]    token block j*q + k, feature block i
///   out[m/q^2, h/q]   token block j*q + i, feature block k   (the block's layout again)
///
///   X -> fc1 (Linear3D, kReadsBlockLayout) -> H -> GELU, local -> fc2 (kWritesBlockLayout) -> out
///
/// GELU is local because fc1's reduce-scatter leaves each rank whole elements of H, never
/// partial sums. With Activation::none this is the linear pair of the exact checks.
class Mlp3D final : public Sublayer {
 public:
  /// The sublayer of this rank, from its parameter shards.
  Mlp3D(Device& device, const Grid3D& grid, const TensorMap& parameters, Activation activation,
        ExecutionPolicy policy);

  Tensor forward(const Tensor& x) override;
  Tensor backward(const Tensor& dout) override;
  void collect_gradients(TensorMap& out) const override;
  void forget() override;

 private:
  Device& device_;
  Activation activation_;
  InputGather3D fc1_input_;
  Linear3D fc1_;
  InputGather3D fc2_input_;
  Linear3D fc2_;
  Tensor hidden_;  // fc1's output, kept for GELU's backward
};

}  // namespace tplab::tp3d
