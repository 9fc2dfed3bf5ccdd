/// @file
/// LayerNorm whose features may be split over several ranks (all schemes use this one).
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab {

/// y = (x - mean) / sqrt(var + eps) * gamma + beta over the features of each row (token).
///
/// In 1D every rank holds whole rows; in 2D, 2.5D and 3D a row's features are split over a
/// group of ranks, so the row statistics are all-reduced over that `feature_group`:
///   forward:  sum(x) -> mean, then sum((x - mean)^2) -> var     2 all-reduces of [rows]
///   backward: sum(g), sum(g xhat) with g = dy gamma              1 all-reduce of [rows, 2]
/// The variance takes two passes: the one-pass E[x^2] - E[x]^2 subtracts two large, nearly
/// equal numbers when |mean| >> std and loses every digit of the variance (in f32 already at
/// mean/std ~ 1e3), whereas summing squared deviations from the true mean cannot cancel.
///
/// gamma and beta are replicated over `replica_group` (ranks that hold the same features of
/// different rows); their gradients are summed over it so that every replica holds the
/// gradient of the whole batch.
class LayerNorm {
 public:
  /// `features`: the global feature count. A null group means "this rank alone".
  LayerNorm(Device& device, Comm* feature_group, Comm* replica_group, std::int64_t features,
            Tensor gamma, Tensor beta);

  /// x[rows, features/g] -> y[rows, features/g]; keeps xhat and 1/std for backward.
  Tensor forward(const Tensor& x);
  /// dy -> dx; computes the gamma and beta gradients.
  Tensor backward(const Tensor& dy);

  /// Gradient of gamma (summed over the replica group), valid after backward.
  const Tensor& gamma_grad() const { return gamma_grad_; }
  /// Gradient of beta (summed over the replica group), valid after backward.
  const Tensor& beta_grad() const { return beta_grad_; }

  /// Added to the variance before the square root.
  static constexpr double kEps = 1e-5;
  /// Lets go of the kept xhat and 1/std.
  void forget() {
    xhat_ = Tensor();
    rstd_ = Tensor();
  }

 private:
  Device& device_;
  Comm* feature_group_;
  Comm* replica_group_;
  std::int64_t features_;
  Tensor gamma_, beta_;
  Tensor xhat_, rstd_;
  Tensor param_grads_;  // [2, features/g]: gamma's then beta's, reduced in one call
  Tensor gamma_grad_, beta_grad_;
};

}  // namespace tplab
