#include "tp1d/column_parallel_linear.hpp"

namespace tplab::tp1d {

ColumnParallelLinear::ColumnParallelLinear(Device& device, Tensor weight, Tensor bias)
    : device_(device), weight_(std::move(weight)), bias_(std::move(bias)) {}

Tensor ColumnParallelLinear::apply(const Tensor& x) const {
  Tensor y = device_.empty({x.rows(), weight_.cols()}, x.dtype());
  // [m, in] x [in, out/t] -> [m, out/t]
  device_.matmul(x, Transpose::no, weight_, Transpose::no, y);
  device_.add_bias(y, bias_);
  return y;
}

Tensor ColumnParallelLinear::input_grad(const Tensor& dy) const {
  Tensor dx = device_.empty({dy.rows(), weight_.rows()}, dy.dtype());
  // [m, out/t] x [in, out/t]^T -> [m, in]   (a partial sum: this rank's columns only)
  device_.matmul(dy, Transpose::no, weight_, Transpose::yes, dx);
  return dx;
}

void ColumnParallelLinear::weight_grads(const Tensor& x, const Tensor& dy) {
  weight_grad_ = device_.empty(weight_.extents(), dy.dtype());
  // [m, in]^T x [m, out/t] -> [in, out/t]
  device_.matmul(x, Transpose::yes, dy, Transpose::no, weight_grad_);
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);
}

}  // namespace tplab::tp1d
