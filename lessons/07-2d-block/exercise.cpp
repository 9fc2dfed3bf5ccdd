// Lesson 07 exercise: the reductions of a LayerNorm whose features are spread over a row of
// the q x q grid. Fill in the TODO blocks, then run ./tplab lesson check 7. README.md explains
// the idea; ./tplab lesson hint 7 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::block_2d {

Tensor distributed_layernorm_forward(Device& device, Grid2D& grid, std::int64_t features,
                                     const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                     LayerNormSaved& saved) {
  const std::int64_t rows = x.rows();
  Tensor mean = device.empty({rows}, x.dtype());
  Tensor var = device.empty({rows}, x.dtype());
  // TODO: the mean and the variance of each token over all `features` (h) of its row, of which
  //       this rank holds h/q; the others are on the ranks of grid.row.
  //         mean[r] = (sum over grid.row of sum_c x[r, c]) / features     (device.row_sum)
  //         var[r]  = (sum over grid.row of sum_c (x[r, c] - mean[r])^2) / features
  //                   (device.row_sum_squared_deviation: a second pass, from the whole mean)
  (void)grid;
  (void)features;
  TPLAB_TODO();

  saved.xhat = device.empty(x.extents(), x.dtype());
  saved.rstd = device.empty({rows}, x.dtype());
  Tensor y = device.empty(x.extents(), x.dtype());
  device.layernorm_apply(x, mean, var, kEps, gamma, beta, saved.xhat, saved.rstd, y);
  return y;
}

LayerNormGrads distributed_layernorm_backward(Device& device, Grid2D& grid, std::int64_t features,
                                              const Tensor& dy, const Tensor& gamma,
                                              const LayerNormSaved& saved) {
  Tensor sums = device.empty({dy.rows(), 2}, dy.dtype());
  device.layernorm_backward_sums(dy, gamma, saved.xhat, sums);
  // TODO: sums[r] = (sum_c g, sum_c g xhat) with g = dy gamma, over this rank's h/q features
  //       only: complete both sums over the token's whole row of features.
  (void)grid;
  TPLAB_TODO();

  LayerNormGrads r;
  r.dx = device.empty(dy.extents(), dy.dtype());
  device.layernorm_backward_input(dy, gamma, saved.xhat, saved.rstd, sums, features, r.dx);
  r.d_gamma = device.empty(gamma.extents(), dy.dtype());
  r.d_beta = device.empty(gamma.extents(), dy.dtype());
  device.layernorm_backward_params(dy, saved.xhat, r.d_gamma, r.d_beta);
  // TODO: d_gamma and d_beta sum over this rank's m/q tokens only. Which ranks hold the same
  //       gamma(j) block for the other tokens? Sum the gradients over that group.
  TPLAB_TODO();
  return r;
}

}  // namespace tplab::lessons::block_2d
