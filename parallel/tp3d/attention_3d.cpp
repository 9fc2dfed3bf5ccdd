/// @file
/// Attention3D: Q, K and V from one gathered input, attention on whole heads, the projection.
#include "tp3d/attention_3d.hpp"

namespace tplab::tp3d {

Attention3D::Attention3D(Device& device, const Grid3D& grid, const BlockShape& shape,
                         const TensorMap& parameters, ExecutionPolicy policy,
                         std::shared_ptr<BlockDropout> dropout, Recompute recompute)
    : device_(device),
      input_(device, grid, kReadsBlockLayout, policy),
      query_(device, grid, kReadsBlockLayout, parameters.at("wq"), parameters.at("bq"), policy),
      key_(device, grid, kReadsBlockLayout, parameters.at("wk"), parameters.at("bk"), policy),
      value_(device, grid, kReadsBlockLayout, parameters.at("wv"), parameters.at("bv"), policy),
      // heads cut along i: this rank's are i*n/q .. (i+1)*n/q - 1; the window sets the sequences
      core_(device, *grid.output_weight, shape.b, shape.s, shape.heads / grid.q, shape.head_dim(),
            AttentionDropout{std::move(dropout), 0, grid.coordinates.i * (shape.heads / grid.q)},
            recompute),
      projection_input_(device, grid, kWritesBlockLayout, policy),
      projection_(device, grid, kWritesBlockLayout, parameters.at("wo"), parameters.at("bo"),
                  policy) {}

Tensor Attention3D::forward(const Tensor& a) {
  const Tensor a_gathered = input_.forward(a);  // [m/q, h/q]
  // With overlap, each linear's W~ is gathered during the previous product (else no-ops).
  key_.prefetch_weight();
  const Tensor q = query_.forward(a_gathered);  // [m/q^2, h/q]: this rank's heads
  value_.prefetch_weight();
  const Tensor k = key_.forward(a_gathered);
  projection_.prefetch_weight();
  const Tensor v = value_.forward(a_gathered);
  const Tensor ctx = core_.forward(q, k, v);                   // [m/q^2, h/q]
  return projection_.forward(projection_input_.forward(ctx));  // [m/q^2, h/q], block layout
}

Tensor Attention3D::backward(const Tensor& dout) {
  const Tensor ctx_gathered = projection_input_.gathered_for_backward();  // ctx~ [m/q, h/q]
  // dout [m/q^2, h/q] -> dctx~ [m/q, h/q], this rank's share (see Linear3D for the products)
  const Tensor dctx_gathered = projection_.backward(dout, ctx_gathered);
  const Tensor dctx = projection_input_.backward(dctx_gathered);  // [m/q^2, h/q]
  Tensor dq, dk, dv;
  core_.backward(dctx, dq, dk, dv);                          // [m/q^2, h/q] each
  const Tensor a_gathered = input_.gathered_for_backward();  // A~ [m/q, h/q]
  // [m/q^2, h/q] -> dA~ [m/q, h/q] each, this rank's share; summed before one reduce-scatter
  Tensor da_gathered = query_.backward(dq, a_gathered);
  device_.add_inplace(da_gathered, key_.backward(dk, a_gathered));
  device_.add_inplace(da_gathered, value_.backward(dv, a_gathered));
  return input_.backward(da_gathered);  // [m/q, h/q] -> [m/q^2, h/q]
}

void Attention3D::collect_gradients(TensorMap& out) const {
  add_attention_gradients(out, query_, key_, value_, projection_);
}

void Attention3D::forget() {
  input_.forget();
  for (Linear3D* linear : {&query_, &key_, &value_, &projection_}) linear->forget();
  core_.forget();
  projection_input_.forget();
}

}  // namespace tplab::tp3d
