#include "tp1d/attention_1d.hpp"

namespace tplab::tp1d {

Attention1D::Attention1D(Device& device, Comm& tp, const BlockShape& shape,
                         const TensorMap& parameters, Mode1D mode)
    : device_(device),
      input_(device, tp, mode),
      query_(device, parameters.at("wq"), parameters.at("bq")),
      key_(device, parameters.at("wk"), parameters.at("bk")),
      value_(device, parameters.at("wv"), parameters.at("bv")),
      core_(device, shape.b, shape.heads / tp.size(), shape.head_dim()),
      projection_(device, tp, parameters.at("wo"), parameters.at("bo"), mode) {}

Tensor Attention1D::forward(const Tensor& a) {
  const Tensor input = input_.forward(a);  // [m, h], kept by input_ for Q, K and V
  const Tensor q = query_.apply(input);    // [m, h/t]: this rank's heads
  const Tensor k = key_.apply(input);
  const Tensor v = value_.apply(input);
  const Tensor ctx = core_.forward(q, k, v);  // [m, h/t]
  return projection_.forward(ctx);            // [m, h] all-reduced (g), or [m/t, h] (SP)
}

Tensor Attention1D::backward(const Tensor& dout) {
  const Tensor dctx = projection_.backward(dout);  // [m, h/t]
  Tensor dq, dk, dv;
  core_.backward(dctx, dq, dk, dv);
  const auto input_grad = [&] {
    Tensor da = query_.input_grad(dq);  // partial [m, h] from this rank's heads
    device_.add_inplace(da, key_.input_grad(dk));
    device_.add_inplace(da, value_.input_grad(dv));
    return da;
  };
  const auto weight_grads = [&](const Tensor& input) {
    query_.weight_grads(input, dq);
    key_.weight_grads(input, dk);
    value_.weight_grads(input, dv);
  };
  return input_.backward(input_grad, weight_grads);  // the partials summed over the group (f)
}

std::size_t Attention1D::saved_bytes() const {
  // Q, K and V read the same input, kept once by input_.
  return input_.saved_bytes() + core_.saved_bytes() + projection_.saved_bytes();
}

void Attention1D::collect_gradients(TensorMap& out) const {
  add_linear_gradients(out, "wq", "bq", query_);
  add_linear_gradients(out, "wk", "bk", key_);
  add_linear_gradients(out, "wv", "bv", value_);
  add_linear_gradients(out, "wo", "bo", projection_);
}

}  // namespace tplab::tp1d
