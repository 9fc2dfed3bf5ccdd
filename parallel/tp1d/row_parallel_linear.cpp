#include "tp1d/row_parallel_linear.hpp"

namespace tplab::tp1d {

RowParallelLinear::RowParallelLinear(Device& device, Comm& tp, Tensor weight, Tensor bias,
                                     Mode1D mode, ExecutionPolicy policy)
    : device_(device),
      output_(make_row_output_region(device, tp, mode, policy)),
      weight_(std::move(weight)),
      bias_(std::move(bias)) {}

Tensor RowParallelLinear::forward(const Tensor& x) {
  x_ = x;
  Tensor partial = device_.empty({x.rows(), weight_.cols()}, x.dtype());
  // [m, in/t] x [in/t, out] -> [m, out]   (a partial sum over this rank's rows of W)
  device_.matmul(x, Transpose::no, weight_, Transpose::no, partial);
  Tensor y = output_->forward(std::move(partial));  // g: [m, out]; SP: [m/t, out]
  device_.add_bias(y, bias_);
  return y;
}

Tensor RowParallelLinear::backward(const Tensor& dy) {
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);  // SP: this rank's tokens' share
  CommRequest bias_sum = output_->sum_bias_grad(bias_grad_);
  const Tensor grad = output_->backward(dy);  // [m, out], whole
  weight_grad_ = device_.empty(weight_.extents(), grad.dtype());
  // [m, in/t]^T x [m, out] -> [in/t, out]
  device_.matmul(x_, Transpose::yes, grad, Transpose::no, weight_grad_);
  Tensor dx = device_.empty(x_.extents(), grad.dtype());
  // [m, out] x [in/t, out]^T -> [m, in/t]
  device_.matmul(grad, Transpose::no, weight_, Transpose::yes, dx);
  bias_sum.wait();
  return dx;
}

}  // namespace tplab::tp1d
