#include "tp2d/mlp_2d.hpp"

namespace tplab::tp2d {

Mlp2D::Mlp2D(Device& device, Grid2D& grid, const TensorMap& parameters, Activation activation,
             ExecutionPolicy policy)
    : device_(device),
      activation_(activation),
      fc1_(device, grid, parameters.at("w1"), parameters.at("b1"), policy),
      fc2_(device, grid, parameters.at("w2"), parameters.at("b2"), policy) {}

Tensor Mlp2D::forward(const Tensor& x) {
  hidden_ = fc1_.forward(x);  // [m/q, 4h/q]
  if (activation_ == Activation::none) return fc2_.forward(hidden_);
  Tensor activated = device_.empty(hidden_.extents(), hidden_.dtype());
  device_.gelu_forward(hidden_, activated);
  return fc2_.forward(activated);  // [m/q, h/q]
}

Tensor Mlp2D::backward(const Tensor& dout) {
  Tensor dhidden = fc2_.backward(dout);  // [m/q, 4h/q]
  if (activation_ == Activation::gelu) {
    Tensor dactivated = std::move(dhidden);
    dhidden = device_.empty(hidden_.extents(), hidden_.dtype());
    device_.gelu_backward(hidden_, dactivated, dhidden);
  }
  return fc1_.backward(dhidden);  // [m/q, h/q]
}

void Mlp2D::collect_gradients(TensorMap& out) const {
  add_linear_gradients(out, "w1", "b1", fc1_);
  add_linear_gradients(out, "w2", "b2", fc2_);
}

void Mlp2D::forget() {
  fc1_.forget();
  fc2_.forget();
  hidden_ = Tensor();
}

}  // namespace tplab::tp2d
