#include "tp1d/row_parallel_linear.hpp"

#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

RowParallelLinear::RowParallelLinear(Device& device, Comm& tp, Tensor weight, Tensor bias,
                                     Mode1D mode)
    : device_(device), tp_(tp), mode_(mode), weight_(std::move(weight)), bias_(std::move(bias)) {}

Tensor RowParallelLinear::forward(const Tensor& x) {
  x_ = x;
  Tensor partial = device_.empty({x.rows(), weight_.cols()}, x.dtype());
  // [m, in/t] x [in/t, out] -> [m, out]   (a partial sum over this rank's rows of W)
  device_.matmul(x, Transpose::no, weight_, Transpose::no, partial);
  if (!mode_.sequence_parallel) {
    OperatorG::forward(tp_, partial);
    device_.add_bias(partial, bias_);
    return partial;
  }
  Tensor y = device_.empty({x.rows() / tp_.size(), weight_.cols()}, x.dtype());
  tp_.reduce_scatter(partial, y);  // summed over ranks, this rank's tokens: [m/t, out]
  device_.add_bias(y, bias_);
  return y;
}

Tensor RowParallelLinear::backward(const Tensor& dy) {
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);  // SP: this rank's tokens' share
  CommRequest bias_sum;
  Tensor grad = OperatorG::backward(dy);
  if (mode_.sequence_parallel) {
    if (mode_.overlap) {
      bias_sum = tp_.start_all_reduce(bias_grad_);
    } else {
      tp_.all_reduce(bias_grad_);
    }
    grad = device_.empty({x_.rows(), dy.cols()}, dy.dtype());
    tp_.all_gather(dy, grad);  // [m/t, out] -> [m, out]
  }
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
