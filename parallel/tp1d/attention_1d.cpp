#include "tp1d/attention_1d.hpp"

namespace tplab::tp1d {

Attention1D::Attention1D(Device& device, Comm& tp, const BlockShape& shape,
                         const TensorMap& parameters, ExecutionPolicy policy, Mode1D mode,
                         AttentionDropout dropout, Recompute recompute)
    : device_(device),
      input_(make_column_input_region(device, tp, mode, policy)),
      query_(device, parameters.at("wq"), parameters.at("bq")),
      key_(device, parameters.at("wk"), parameters.at("bk")),
      value_(device, parameters.at("wv"), parameters.at("bv")),
      core_(device, shape.b, shape.heads / tp.size(), shape.head_dim(), std::move(dropout),
            recompute),
      projection_(device, tp, parameters.at("wo"), parameters.at("bo"), mode, policy) {}

Tensor Attention1D::forward(const Tensor& a) {
  const Tensor input = input_->forward(a);  // f: [m, h], kept once for Q, K and V
  const Tensor q = query_.apply(input);     // [m, h] x [h, h/t] -> [m, h/t]: this rank's heads
  const Tensor k = key_.apply(input);
  const Tensor v = value_.apply(input);
  const Tensor ctx = core_.forward(q, k, v);  // [m, h/t]
  return projection_.forward(ctx);            // [m, h] all-reduced (g), or [m/t, h] (SP)
}

// With overlap, each collective below travels during the products that follow it: the SP
// re-gather of A during dA's products, the sum of dA during the weight gradients.
Tensor Attention1D::backward(const Tensor& dout) {
  const Tensor dctx = projection_.backward(dout);  // [m, h/t]
  Tensor dq, dk, dv;
  core_.backward(dctx, dq, dk, dv);                    // [m, h/t] each
  PendingTensor input = input_->input_for_backward();  // A [m, h]: kept, or gathered again (SP)
  // [m, h/t] x [h, h/t]^T -> [m, h] each: partial sums over this rank's heads
  Tensor partial = query_.input_grad(dq);
  device_.add_inplace(partial, key_.input_grad(dk));
  device_.add_inplace(partial, value_.input_grad(dv));
  const Tensor& a = input.wait();
  PendingTensor da = input_->backward(std::move(partial));  // f: all-reduce; SP: reduce-scatter
  // [m, h]^T x [m, h/t] -> [h, h/t] each
  query_.weight_grads(a, dq);
  key_.weight_grads(a, dk);
  value_.weight_grads(a, dv);
  return da.wait();  // [m, h], or [m/t, h] (SP)
}

void Attention1D::collect_gradients(TensorMap& out) const {
  add_attention_gradients(out, query_, key_, value_, projection_);
}

void Attention1D::forget() {
  input_->forget();
  core_.forget();
  projection_.forget();
}

}  // namespace tplab::tp1d
