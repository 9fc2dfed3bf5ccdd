#include "tp1d/row_parallel_linear.hpp"

#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

RowParallelLinear::RowParallelLinear(Device& device, Comm& tp, Tensor weight, Tensor bias)
    : device_(device), tp_(tp), weight_(std::move(weight)), bias_(std::move(bias)) {}

Tensor RowParallelLinear::forward(const Tensor& x) {
  x_ = x;
  Tensor y = device_.empty({x.rows(), weight_.cols()}, x.dtype());
  // [m, in/t] x [in/t, out] -> [m, out]   (a partial sum over this rank's rows of W)
  device_.matmul(x, Transpose::no, weight_, Transpose::no, y);
  OperatorG::forward(tp_, y);
  device_.add_bias(y, bias_);
  return y;
}

Tensor RowParallelLinear::backward(const Tensor& dy) {
  const Tensor& grad = OperatorG::backward(dy);
  weight_grad_ = device_.empty(weight_.extents(), grad.dtype());
  // [m, in/t]^T x [m, out] -> [in/t, out]
  device_.matmul(x_, Transpose::yes, grad, Transpose::no, weight_grad_);
  bias_grad_ = device_.empty(bias_.extents(), grad.dtype());
  device_.column_sum(grad, bias_grad_);
  Tensor dx = device_.empty(x_.extents(), grad.dtype());
  // [m, out] x [in/t, out]^T -> [m, in/t]
  device_.matmul(grad, Transpose::no, weight_, Transpose::yes, dx);
  return dx;
}

}  // namespace tplab::tp1d
