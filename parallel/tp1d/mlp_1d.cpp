#include "tp1d/mlp_1d.hpp"

namespace tplab::tp1d {

Mlp1D::Mlp1D(Device& device, Comm& tp, const TensorMap& parameters, Activation activation,
             ExecutionPolicy policy, Mode1D mode)
    : device_(device),
      activation_(activation),
      input_(make_column_input_region(device, tp, mode, policy)),
      fc1_(device, parameters.at("w1"), parameters.at("b1")),
      fc2_(device, tp, parameters.at("w2"), parameters.at("b2"), mode, policy) {}

Tensor Mlp1D::forward(const Tensor& x) {
  hidden_ = fc1_.apply(input_->forward(x));  // f, then [m, h] x [h, 4h/t] -> [m, 4h/t]
  if (activation_ == Activation::none) return fc2_.forward(hidden_);
  Tensor activated = device_.empty(hidden_.extents(), hidden_.dtype());
  device_.gelu_forward(hidden_, activated);
  return fc2_.forward(activated);  // [m, h] all-reduced (g), or [m/t, h] (SP)
}

// With overlap, each collective below travels during the product that follows it: the SP
// re-gather of X during dX's product, the sum of dX during the weight gradient.
Tensor Mlp1D::backward(const Tensor& dout) {
  Tensor dhidden = fc2_.backward(dout);  // [m, 4h/t]
  if (activation_ == Activation::gelu) {
    Tensor dactivated = std::move(dhidden);
    dhidden = device_.empty(hidden_.extents(), hidden_.dtype());
    device_.gelu_backward(hidden_, dactivated, dhidden);
  }
  PendingTensor input = input_->input_for_backward();  // X [m, h]: kept, or gathered again (SP)
  Tensor partial = fc1_.input_grad(dhidden);           // [m, 4h/t] x [h, 4h/t]^T -> [m, h], partial
  const Tensor& x = input.wait();
  PendingTensor dx = input_->backward(std::move(partial));  // f: all-reduce; SP: reduce-scatter
  fc1_.weight_grads(x, dhidden);                            // [m, h]^T x [m, 4h/t] -> [h, 4h/t]
  return dx.wait();                                         // [m, h], or [m/t, h] (SP)
}

void Mlp1D::collect_gradients(TensorMap& out) const {
  add_linear_gradients(out, "w1", "b1", fc1_);
  add_linear_gradients(out, "w2", "b2", fc2_);
}

void Mlp1D::forget() {
  input_->forget();
  fc2_.forget();
  hidden_ = Tensor();
}

}  // namespace tplab::tp1d
