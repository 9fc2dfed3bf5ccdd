/// @file
/// Mlp2D: the MLP half of an Optimus block on a q x q mesh.
#pragma once

#include "grid/grid_2d.hpp"
#include "layers/activation.hpp"
#include "layers/sublayer.hpp"
#include "scheme/execution_policy.hpp"
#include "tp2d/linear_2d.hpp"

namespace tplab::tp2d {

/// X(i,j) [m/q, h/q] -> fc1 by SUMMA [m/q, 4h/q] -> GELU, local (every element is whole) ->
/// fc2 by SUMMA -> [m/q, h/q].
class Mlp2D final : public Sublayer {
 public:
  /// The sublayer of this rank, from its parameter shards.
  Mlp2D(Device& device, Grid2D& grid, const TensorMap& parameters, Activation activation,
        ExecutionPolicy policy = {});

  Tensor forward(const Tensor& x) override;
  Tensor backward(const Tensor& dout) override;
  void collect_gradients(TensorMap& out) const override;
  void forget() override;

 private:
  Device& device_;
  Activation activation_;
  Linear2D fc1_, fc2_;
  Tensor hidden_;  // fc1's output, kept for GELU's backward
};

}  // namespace tplab::tp2d
