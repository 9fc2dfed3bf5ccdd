/// @file
/// Linear2D: Y = X W + b on a q x q mesh, by SUMMA.
#pragma once

#include "device/device.hpp"
#include "grid/grid_2d.hpp"
#include "scheme/execution_policy.hpp"

namespace tplab::tp2d {

/// Rank (i, j) holds X(i,j) [m/q, in/q], W(i,j) [in/q, out/q] and the bias block b(j)
/// [out/q], which every rank of column j holds alike.
///
///   forward:  Y(i,j) = SUMMA(X, W)(i,j) + b(j)
///   backward: dX = SUMMA dY W^T, dW = SUMMA X^T dY, db(j) = all_reduce over column j of
///             the column sums of dY(i,j)
///
/// The bias follows the Optimus authors' choice of keeping it whole per column rather than
/// Colossal-AI's [out/q^2] slices: it is added locally, and its gradient, summed over the
/// token blocks of a column, is all-reduced there so that every copy stays the same.
class Linear2D {
 public:
  /// A layer holding this rank\'s weight and bias shards (see the class comment).
  Linear2D(Device& device, Grid2D& grid, Tensor weight, Tensor bias, ExecutionPolicy policy = {});

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
  Grid2D& grid_;
  ExecutionPolicy policy_;  // with overlap, SUMMA starts each step's broadcasts a step early
  Tensor weight_, bias_;
  Tensor x_;
  Tensor weight_grad_, bias_grad_;
};

}  // namespace tplab::tp2d
