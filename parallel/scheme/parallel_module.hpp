/// @file
/// ParallelModule: what every scheme's block (or linear pair) looks like to verify and bench.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "core/tensor.hpp"
#include "device/dropout_mask.hpp"

namespace tplab {

/// Named tensors (parameter shards, gradient shards), ordered by name.
using TensorMap = std::map<std::string, Tensor, std::less<>>;

/// One rank's part of a tensor-parallel computation. It holds its parameter shards, runs
/// forward on its shard of the input and backward on its shard of the output gradient, and
/// exposes the gradient shard of every parameter (under gradient_name(parameter)).
class ParallelModule {
 public:
  virtual ~ParallelModule() = default;
  /// This rank's shard of x (placement "x") -> its shard of y (placement "y").
  virtual Tensor forward(const Tensor& x) = 0;
  /// This rank's shard of dy -> its shard of dx; fills the parameter gradients.
  virtual Tensor backward(const Tensor& dy) = 0;
  /// Gradient shards by name ("d_wq", ...), valid after backward.
  virtual TensorMap gradients() const = 0;
  /// The dropout draw the next forward uses (the training step, the block's layer); a module
  /// without dropout ignores it.
  virtual void set_dropout_draw(DropoutDraw /*draw*/) {}
};

}  // namespace tplab
