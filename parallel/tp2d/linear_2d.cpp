#include "tp2d/linear_2d.hpp"

#include "tp2d/summa.hpp"

namespace tplab::tp2d {

Linear2D::Linear2D(Device& device, Grid2D& grid, Tensor weight, Tensor bias, ExecutionPolicy policy)
    : device_(device),
      grid_(grid),
      policy_(policy),
      weight_(std::move(weight)),
      bias_(std::move(bias)) {}

Tensor Linear2D::forward(const Tensor& x) {
  x_ = x;
  // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q], by SUMMA over the mesh
  Tensor y = summa_forward(device_, grid_, x, weight_, policy_);
  device_.add_bias(y, bias_);
  return y;
}

Tensor Linear2D::backward(const Tensor& dy) {
  // dW = X^T dY: [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q], by SUMMA over the mesh
  weight_grad_ = summa_weight_gradient(device_, grid_, x_, dy, policy_);
  bias_grad_ = device_.empty(bias_.extents(), dy.dtype());
  device_.column_sum(dy, bias_grad_);
  // Blocking: out/q elements, little to hide; started, it would share the column group with
  // the broadcasts of dX's SUMMA below, which the policy starts too.
  grid_.column->all_reduce(bias_grad_);  // over the token blocks of column j
  // dX = dY W^T: [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q], by SUMMA over the mesh
  return summa_input_gradient(device_, grid_, dy, weight_, policy_);
}

}  // namespace tplab::tp2d
