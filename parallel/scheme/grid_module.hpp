/// @file
/// GridModule: a scheme's module together with the process grid its layers communicate over.
#pragma once

#include <memory>
#include <utility>

#include "scheme/parallel_module.hpp"

namespace tplab {

/// Owns the grid so that its communicators outlive the layers that use them, and forwards
/// to the module built on it. Every scheme's make_module returns one; 2.5D adds a step to
/// backward.
template <typename Grid>
class GridModule : public ParallelModule {
 public:
  /// Keeps `grid`, then builds the module on the kept grid: build(Grid&) -> module.
  template <typename Build>
  GridModule(Grid grid, Build&& build) : grid_(std::move(grid)), inner_(build(grid_)) {}

  Tensor forward(const Tensor& x) override { return inner_->forward(x); }
  Tensor backward(const Tensor& dy) override { return inner_->backward(dy); }
  TensorMap gradients() const override { return inner_->gradients(); }
  void set_dropout_draw(DropoutDraw draw) override { inner_->set_dropout_draw(draw); }

 protected:
  /// The grid the module runs on.
  Grid& grid() { return grid_; }

 private:
  Grid grid_;
  std::unique_ptr<ParallelModule> inner_;
};

}  // namespace tplab
