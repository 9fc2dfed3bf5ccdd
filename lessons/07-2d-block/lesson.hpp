/// @file
/// Lesson 07: the 2D block and its distributed LayerNorm. The functions the exercise fills in.
#pragma once

#include "device/device.hpp"
#include "grid/grid_2d.hpp"

namespace tplab::lessons::block_2d {

/// Added to the variance before the square root, as everywhere in tplab.
inline constexpr double kEps = 1e-5;

/// What the LayerNorm's forward keeps for its backward.
struct LayerNormSaved {
  Tensor xhat;  ///< (x - mean) / sqrt(var + eps), this rank's block [m/q, h/q]
  Tensor rstd;  ///< 1 / sqrt(var + eps) per token row [m/q]
};

/// The LayerNorm's input gradient and this rank's blocks of the parameter gradients.
struct LayerNormGrads {
  Tensor dx;       ///< [m/q, h/q]
  Tensor d_gamma;  ///< [h/q], summed over all m tokens (the same on every rank of the column)
  Tensor d_beta;   ///< [h/q], likewise
};

/// LayerNorm of the token rows of a q x q grid: rank (i, j) holds x(i,j) [m/q, h/q] (tokens of
/// block i, features of block j) and gamma(j), beta(j) [h/q]. The `features` (h) of a token are
/// spread over the row group, so its mean and variance are all-reduced there (two passes).
Tensor distributed_layernorm_forward(Device& device, Grid2D& grid, std::int64_t features,
                                     const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                     LayerNormSaved& saved);

/// The backward of distributed_layernorm_forward: the per-token sums of g = dy gamma and
/// g xhat are all-reduced over the row group; the gamma and beta gradients over the column
/// group (the replicas of gamma(j), beta(j), each of which saw m/q of the tokens).
LayerNormGrads distributed_layernorm_backward(Device& device, Grid2D& grid, std::int64_t features,
                                              const Tensor& dy, const Tensor& gamma,
                                              const LayerNormSaved& saved);

}  // namespace tplab::lessons::block_2d
