#include "tp1d/attention_1d.hpp"

#include "tp1d/conjugate_operators.hpp"

namespace tplab::tp1d {

Attention1D::Attention1D(Device& device, Comm& tp, const BlockShape& shape,
                         const TensorMap& parameters)
    : device_(device),
      tp_(tp),
      query_(device, parameters.at("wq"), parameters.at("bq")),
      key_(device, parameters.at("wk"), parameters.at("bk")),
      value_(device, parameters.at("wv"), parameters.at("bv")),
      core_(device, shape.b, shape.heads / tp.size(), shape.head_dim()),
      projection_(device, tp, parameters.at("wo"), parameters.at("bo")) {}

Tensor Attention1D::forward(const Tensor& a) {
  const Tensor& input = OperatorF::forward(a);
  const Tensor q = query_.forward(input);  // [m, h/t]: this rank's heads
  const Tensor k = key_.forward(input);
  const Tensor v = value_.forward(input);
  const Tensor ctx = core_.forward(q, k, v);  // [m, h/t]
  return projection_.forward(ctx);            // [m, h], all-reduced (g)
}

Tensor Attention1D::backward(const Tensor& dout) {
  const Tensor dctx = projection_.backward(dout);  // [m, h/t]
  Tensor dq, dk, dv;
  core_.backward(dctx, dq, dk, dv);
  Tensor da = query_.backward(dq);  // partial [m, h] from this rank's heads
  device_.add_inplace(da, key_.backward(dk));
  device_.add_inplace(da, value_.backward(dv));
  OperatorF::backward(tp_, da);  // sum the partials of all ranks
  return da;
}

std::size_t Attention1D::saved_bytes() const {
  // Q, K and V keep the same input: counted once.
  return query_.saved_bytes() + core_.saved_bytes() + projection_.saved_bytes();
}

void Attention1D::collect_gradients(TensorMap& out) const {
  add_linear_gradients(out, "wq", "bq", query_);
  add_linear_gradients(out, "wk", "bk", key_);
  add_linear_gradients(out, "wv", "bv", value_);
  add_linear_gradients(out, "wo", "bo", projection_);
}

}  // namespace tplab::tp1d
