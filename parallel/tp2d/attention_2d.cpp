#include "tp2d/attention_2d.hpp"

namespace tplab::tp2d {

Attention2D::Attention2D(Device& device, Grid2D& grid, std::int64_t batch, std::int64_t heads,
                         std::int64_t head_dim, const TensorMap& parameters, ExecutionPolicy policy,
                         AttentionDropout dropout, Recompute recompute)
    : device_(device),
      query_(device, grid, parameters.at("wq"), parameters.at("bq"), policy),
      key_(device, grid, parameters.at("wk"), parameters.at("bk"), policy),
      value_(device, grid, parameters.at("wv"), parameters.at("bv"), policy),
      core_(device, batch, heads, head_dim, std::move(dropout), recompute),
      projection_(device, grid, parameters.at("wo"), parameters.at("bo"), policy) {}

Tensor Attention2D::forward(const Tensor& a) {
  const Tensor q = query_.forward(a);  // [m/q, h/q]: token block i, heads of block j
  const Tensor k = key_.forward(a);
  const Tensor v = value_.forward(a);
  const Tensor ctx = core_.forward(q, k, v);  // [m/q, h/q]
  return projection_.forward(ctx);            // [m/q, h/q]
}

Tensor Attention2D::backward(const Tensor& dout) {
  const Tensor dctx = projection_.backward(dout);  // SUMMA: [m/q, h/q] -> [m/q, h/q]
  Tensor dq, dk, dv;
  core_.backward(dctx, dq, dk, dv);  // [m/q, h/q] each
  // SUMMA: [m/q, h/q] -> [m/q, h/q] each, already summed over the mesh
  Tensor da = query_.backward(dq);
  device_.add_inplace(da, key_.backward(dk));
  device_.add_inplace(da, value_.backward(dv));
  return da;
}

void Attention2D::collect_gradients(TensorMap& out) const {
  add_attention_gradients(out, query_, key_, value_, projection_);
}

void Attention2D::forget() {
  for (Linear2D* linear : {&query_, &key_, &value_, &projection_}) linear->forget();
  core_.forget();
}

}  // namespace tplab::tp2d
