// Lesson 05, the answer: the all-gather and reduce-scatter along the tokens, and the sublayer
// from the library's LayerNorm (gradients of gamma and beta summed over tp, its replica group)
// and ColumnParallelLinear; fc2 is written out, since RowParallelLinear ends in an all-reduce.
#include "layers/layernorm.hpp"
#include "lesson.hpp"
#include "tp1d/column_parallel_linear.hpp"

namespace tplab::lessons::sequence_parallel {

Tensor all_gather_tokens(Device& device, Comm& tp, const Tensor& shard) {
  Tensor full = device.empty({tp.size() * shard.rows(), shard.cols()}, shard.dtype());
  tp.all_gather(shard, full);  // [m/t, h] on each rank -> [m, h], rank r's tokens in its rows
  return full;
}

Tensor reduce_scatter_tokens(Device& device, Comm& tp, const Tensor& full) {
  Tensor shard = device.empty({full.rows() / tp.size(), full.cols()}, full.dtype());
  tp.reduce_scatter(full, shard);  // sum over ranks of [m, h] -> this rank's rows [m/t, h]
  return shard;
}

SpResult ln_mlp_sequence_parallel(Device& device, Comm& tp, const SpShards& p,
                                  const Tensor& x_shard, const Tensor& dy_shard) {
  // Whole rows on every rank (no feature group); gamma and beta see only this rank's tokens,
  // so their gradients are partial and summed over tp.
  LayerNorm ln(device, nullptr, &tp, p.gamma.numel(), p.gamma, p.beta);
  tp1d::ColumnParallelLinear fc1(device, p.w1, p.b1);
  SpResult r;

  const Tensor a = ln.forward(x_shard);                    // [m/t, h]
  const Tensor a_full = all_gather_tokens(device, tp, a);  // g: [m, h]
  const Tensor hidden = fc1.forward(a_full);               // [m, h] x [h, 4h/t] -> [m, 4h/t]
  Tensor act = device.empty(hidden.extents(), hidden.dtype());
  device.gelu_forward(hidden, act);
  Tensor partial = device.empty({act.rows(), p.w2.cols()}, act.dtype());
  // [m, 4h/t] x [4h/t, h] -> [m, h]   (a partial sum over this rank's rows of W2)
  device.matmul(act, Transpose::no, p.w2, Transpose::no, partial);
  r.y = reduce_scatter_tokens(device, tp, partial);  // g-bar: [m/t, h]
  device.add_bias(r.y, p.b2);
  device.add_inplace(r.y, x_shard);  // the residual, on the token shard

  r.d_b2 = device.empty(p.b2.extents(), dy_shard.dtype());
  device.column_sum(dy_shard, r.d_b2);
  tp.all_reduce(r.d_b2);  // each rank summed only its own tokens
  const Tensor dy = all_gather_tokens(device, tp, dy_shard);  // g-bar backward: [m, h]
  r.d_w2 = device.empty(p.w2.extents(), dy.dtype());
  // [m, 4h/t]^T x [m, h] -> [4h/t, h]
  device.matmul(act, Transpose::yes, dy, Transpose::no, r.d_w2);
  Tensor dact = device.empty(act.extents(), dy.dtype());
  // [m, h] x [4h/t, h]^T -> [m, 4h/t]
  device.matmul(dy, Transpose::no, p.w2, Transpose::yes, dact);
  Tensor dhidden = device.empty(hidden.extents(), dy.dtype());
  device.gelu_backward(hidden, dact, dhidden);
  const Tensor da_partial = fc1.backward(dhidden);  // [m, h]: this rank's columns' share
  const Tensor da = reduce_scatter_tokens(device, tp, da_partial);  // g backward: [m/t, h]
  r.dx = ln.backward(da);
  device.add_inplace(r.dx, dy_shard);  // the residual
  r.d_w1 = fc1.weight_grad();
  r.d_b1 = fc1.bias_grad();
  r.d_gamma = ln.gamma_grad();
  r.d_beta = ln.beta_grad();
  return r;
}

}  // namespace tplab::lessons::sequence_parallel
