/// @file
/// Mlp3D: fc1, GELU and fc2 on the cube.
#include "tp3d/mlp_3d.hpp"

namespace tplab::tp3d {

Mlp3D::Mlp3D(Device& device, const Grid3D& grid, const TensorMap& parameters, Activation activation,
             ExecutionPolicy policy)
    : device_(device),
      activation_(activation),
      fc1_input_(device, grid, kReadsBlockLayout, policy),
      fc1_(device, grid, kReadsBlockLayout, parameters.at("w1"), parameters.at("b1"), policy),
      fc2_input_(device, grid, kWritesBlockLayout, policy),
      fc2_(device, grid, kWritesBlockLayout, parameters.at("w2"), parameters.at("b2"), policy) {}

Tensor Mlp3D::forward(const Tensor& x) {
  fc2_.prefetch_weight();  // with overlap, W2~ is gathered during fc1's product
  Tensor hidden = fc1_.forward(fc1_input_.forward(x));  // [m/q^2, 4h/q]
  if (activation_ == Activation::gelu) {
    hidden_ = hidden;
    hidden = device_.empty(hidden_.extents(), hidden_.dtype());
    device_.gelu_forward(hidden_, hidden);
  }
  return fc2_.forward(fc2_input_.forward(hidden));  // [m/q^2, h/q], block layout
}

Tensor Mlp3D::backward(const Tensor& dout) {
  const Tensor activated_gathered = fc2_input_.gathered_for_backward();  // [m/q, 4h/q]
  // dout [m/q^2, h/q] -> [m/q, 4h/q], this rank's share (see Linear3D for the products)
  const Tensor dactivated_gathered = fc2_.backward(dout, activated_gathered);
  Tensor dhidden = fc2_input_.backward(dactivated_gathered);  // [m/q^2, 4h/q]
  if (activation_ == Activation::gelu) {
    const Tensor dactivated = std::move(dhidden);
    dhidden = device_.empty(hidden_.extents(), hidden_.dtype());
    device_.gelu_backward(hidden_, dactivated, dhidden);
  }
  const Tensor x_gathered = fc1_input_.gathered_for_backward();  // X~ [m/q, h/q]
  // dH [m/q^2, 4h/q] -> dX~ [m/q, h/q], this rank's share
  const Tensor dx_gathered = fc1_.backward(dhidden, x_gathered);
  return fc1_input_.backward(dx_gathered);  // [m/q, h/q] -> [m/q^2, h/q]
}

void Mlp3D::collect_gradients(TensorMap& out) const {
  add_linear_gradients(out, "w1", "b1", fc1_);
  add_linear_gradients(out, "w2", "b2", fc2_);
}

void Mlp3D::forget() {
  fc1_input_.forget();
  fc1_.forget();
  fc2_input_.forget();
  fc2_.forget();
  hidden_ = Tensor();
}

}  // namespace tplab::tp3d
