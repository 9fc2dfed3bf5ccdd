// Lesson 07, the answer: the steps of tplab's LayerNorm with the 2D scheme's groups: features
// over grid.row, replicas of gamma and beta over grid.column. The library's version:
// parallel/layers/layernorm.cpp, LayerNorm::forward and LayerNorm::backward.
#include "lesson.hpp"

namespace tplab::lessons::block_2d {

Tensor distributed_layernorm_forward(Device& device, Grid2D& grid, std::int64_t features,
                                     const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                     LayerNormSaved& saved) {
  const std::int64_t rows = x.rows();
  Tensor mean = device.empty({rows}, x.dtype());
  device.row_sum(x, mean);  // this rank's h/q features of each token
  grid.row->all_reduce(mean);
  device.scale(mean, 1.0 / static_cast<double>(features));
  // The second pass, from the true mean: sums of squared deviations cannot cancel.
  Tensor var = device.empty({rows}, x.dtype());
  device.row_sum_squared_deviation(x, mean, var);
  grid.row->all_reduce(var);
  device.scale(var, 1.0 / static_cast<double>(features));

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
  grid.row->all_reduce(sums);  // both sums of every token in one call: [m/q, 2]
  LayerNormGrads r;
  r.dx = device.empty(dy.extents(), dy.dtype());
  device.layernorm_backward_input(dy, gamma, saved.xhat, saved.rstd, sums, features, r.dx);

  Tensor params = device.empty({2, gamma.numel()}, dy.dtype());  // gamma's row, then beta's
  r.d_gamma = params.slice_rows(0, 1).reshaped({gamma.numel()});
  r.d_beta = params.slice_rows(1, 1).reshaped({gamma.numel()});
  device.layernorm_backward_params(dy, saved.xhat, r.d_gamma, r.d_beta);
  grid.column->all_reduce(params);  // every token block of column j: one call for both
  return r;
}

}  // namespace tplab::lessons::block_2d
