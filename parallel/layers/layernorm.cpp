#include "layers/layernorm.hpp"

namespace tplab {
namespace {

// Blocking: the sums are read by the very next step (the mean before the variance, the
// statistics before the normalisation).
void all_reduce_over(Comm* group, Tensor& x) {
  if (group != nullptr) group->all_reduce(x);
}

}  // namespace

LayerNorm::LayerNorm(Device& device, Comm* feature_group, Comm* replica_group,
                     std::int64_t features, Tensor gamma, Tensor beta)
    : device_(device),
      feature_group_(feature_group),
      replica_group_(replica_group),
      features_(features),
      gamma_(std::move(gamma)),
      beta_(std::move(beta)) {
  const std::int64_t local = gamma_.numel();
  param_grads_ = device_.zeros({2, local}, gamma_.dtype());
  gamma_grad_ = param_grads_.slice_rows(0, 1).reshaped({local});
  beta_grad_ = param_grads_.slice_rows(1, 1).reshaped({local});
}

Tensor LayerNorm::forward(const Tensor& x) {
  const std::int64_t rows = x.rows();
  Tensor mean = device_.empty({rows}, x.dtype());
  device_.row_sum(x, mean);
  all_reduce_over(feature_group_, mean);
  device_.scale(mean, 1.0 / static_cast<double>(features_));

  Tensor var = device_.empty({rows}, x.dtype());
  device_.row_sum_squared_deviation(x, mean, var);
  all_reduce_over(feature_group_, var);
  device_.scale(var, 1.0 / static_cast<double>(features_));

  xhat_ = device_.empty(x.extents(), x.dtype());
  rstd_ = device_.empty({rows}, x.dtype());
  Tensor y = device_.empty(x.extents(), x.dtype());
  device_.layernorm_apply(x, mean, var, kEps, gamma_, beta_, xhat_, rstd_, y);
  return y;
}

Tensor LayerNorm::backward(const Tensor& dy) {
  Tensor sums = device_.empty({dy.rows(), 2}, dy.dtype());
  device_.layernorm_backward_sums(dy, gamma_, xhat_, sums);
  all_reduce_over(feature_group_, sums);
  Tensor dx = device_.empty(dy.extents(), dy.dtype());
  device_.layernorm_backward_input(dy, gamma_, xhat_, rstd_, sums, features_, dx);

  device_.layernorm_backward_params(dy, xhat_, gamma_grad_, beta_grad_);
  all_reduce_over(replica_group_, param_grads_);
  return dx;
}

}  // namespace tplab
