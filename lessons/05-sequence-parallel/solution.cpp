// Lesson 05, the answer: the all-gather and reduce-scatter along the tokens, and the LayerNorm
// + MLP sublayer on token shards written out with the Device operations.
#include "lesson.hpp"

namespace tplab::lessons::sequence_parallel {

// The library's version of both: parallel/tp1d/conjugate_operators.cpp,
// GatherFromSequenceParallelRegion::forward (the all-gather) and
// ReduceScatterToSequenceParallelRegion::forward (the reduce-scatter).
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

// The library's version: parallel/layers/layernorm.cpp, LayerNorm::forward, built with no
// feature group and tp as its replica group, then parallel/tp1d/mlp_1d.cpp, Mlp1D::forward
// with Mode1D{.sequence_parallel = true}, which builds the sequence-parallel operators
// (parallel/tp1d/conjugate_operators.cpp, make_column_input_region).
SpForward ln_mlp_forward(Device& device, Comm& tp, const SpShards& p, const Tensor& x_shard) {
  const DType dtype = x_shard.dtype();
  const std::int64_t tokens = x_shard.rows(), h = x_shard.cols();
  SpForward r;
  // LayerNorm of whole rows: every feature of this rank's tokens is here, nothing to sum.
  Tensor mean = device.empty({tokens}, dtype);
  device.row_sum(x_shard, mean);
  device.scale(mean, 1.0 / static_cast<double>(h));
  // The second pass, from the true mean: sums of squared deviations cannot cancel.
  Tensor var = device.empty({tokens}, dtype);
  device.row_sum_squared_deviation(x_shard, mean, var);
  device.scale(var, 1.0 / static_cast<double>(h));
  Tensor xhat = device.empty(x_shard.extents(), dtype);
  Tensor rstd = device.empty({tokens}, dtype);
  Tensor a_shard = device.empty(x_shard.extents(), dtype);  // [m/t, h]
  device.layernorm_apply(x_shard, mean, var, kEps, p.gamma, p.beta, xhat, rstd, a_shard);

  Tensor a = all_gather_tokens(device, tp, a_shard);  // g: [m, h]
  const std::int64_t m = a.rows();
  Tensor hidden = device.empty({m, p.w1.cols()}, dtype);
  // [m, h] x [h, 4h/t] -> [m, 4h/t]
  device.matmul(a, Transpose::no, p.w1, Transpose::no, hidden);
  device.add_bias(hidden, p.b1);
  Tensor act = device.empty(hidden.extents(), dtype);
  device.gelu_forward(hidden, act);
  Tensor partial = device.empty({m, p.w2.cols()}, dtype);
  // [m, 4h/t] x [4h/t, h] -> [m, h]   (a partial sum over this rank's rows of W2)
  device.matmul(act, Transpose::no, p.w2, Transpose::no, partial);
  r.y = reduce_scatter_tokens(device, tp, partial);  // g-bar: [m/t, h]
  device.add_bias(r.y, p.b2);
  device.add_inplace(r.y, x_shard);  // the residual, on the token shard
  // The gathered a is kept whole: backward needs every token of it for dW1 = a^T dhidden.
  r.saved = {xhat, rstd, a, hidden, act};
  return r;
}

// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward with
// Mode1D{.sequence_parallel = true}, then parallel/layers/layernorm.cpp, LayerNorm::backward.
// The library keeps only a_r and gathers a again in backward:
// parallel/tp1d/conjugate_operators.cpp, GatherFromSequenceParallelRegion::input_for_backward.
SpGrads ln_mlp_backward(Device& device, Comm& tp, const SpShards& p, const SpSaved& saved,
                        const Tensor& dy_shard) {
  const DType dtype = dy_shard.dtype();
  const std::int64_t tokens = dy_shard.rows(), h = dy_shard.cols();
  SpGrads r;
  r.d_b2 = device.empty(p.b2.extents(), dtype);
  device.column_sum(dy_shard, r.d_b2);
  tp.all_reduce(r.d_b2);  // each rank summed only its own tokens
  const Tensor dy = all_gather_tokens(device, tp, dy_shard);  // g-bar backward: [m, h]
  const std::int64_t m = dy.rows();
  r.d_w2 = device.empty(p.w2.extents(), dtype);
  // [m, 4h/t]^T x [m, h] -> [4h/t, h]
  device.matmul(saved.act, Transpose::yes, dy, Transpose::no, r.d_w2);
  Tensor dact = device.empty(saved.act.extents(), dtype);
  // [m, h] x [4h/t, h]^T -> [m, 4h/t]
  device.matmul(dy, Transpose::no, p.w2, Transpose::yes, dact);
  Tensor dhidden = device.empty(saved.hidden.extents(), dtype);
  device.gelu_backward(saved.hidden, dact, dhidden);
  r.d_w1 = device.empty(p.w1.extents(), dtype);
  // [m, h]^T x [m, 4h/t] -> [h, 4h/t]
  device.matmul(saved.a, Transpose::yes, dhidden, Transpose::no, r.d_w1);
  r.d_b1 = device.empty(p.b1.extents(), dtype);
  device.column_sum(dhidden, r.d_b1);
  Tensor da_partial = device.empty({m, h}, dtype);
  // [m, 4h/t] x [h, 4h/t]^T -> [m, h]   (a partial sum: this rank's columns of W1 only)
  device.matmul(dhidden, Transpose::no, p.w1, Transpose::yes, da_partial);
  const Tensor da = reduce_scatter_tokens(device, tp, da_partial);  // g backward: [m/t, h]

  // LayerNorm's backward: the two per-token sums are local (whole rows) ...
  Tensor sums = device.empty({tokens, 2}, dtype);
  device.layernorm_backward_sums(da, p.gamma, saved.xhat, sums);
  r.dx = device.empty(dy_shard.extents(), dtype);
  device.layernorm_backward_input(da, p.gamma, saved.xhat, saved.rstd, sums, h, r.dx);
  device.add_inplace(r.dx, dy_shard);  // the residual
  // ... but gamma and beta saw only this rank's tokens: their gradients are summed over tp,
  // both in one call.
  Tensor params = device.empty({2, h}, dtype);
  r.d_gamma = params.slice_rows(0, 1).reshaped({h});
  r.d_beta = params.slice_rows(1, 1).reshaped({h});
  device.layernorm_backward_params(da, saved.xhat, r.d_gamma, r.d_beta);
  tp.all_reduce(params);
  return r;
}

}  // namespace tplab::lessons::sequence_parallel
