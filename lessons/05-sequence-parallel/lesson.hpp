/// @file
/// Lesson 05: sequence parallelism (Korthikanti et al. 2022). The functions the exercise fills in.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::sequence_parallel {

/// Added to the variance before the square root, as everywhere in tplab.
inline constexpr double kEps = 1e-5;

/// X[m, h] on every rank from every rank's token shard X_r[m/t, h] (rank r's tokens are rows
/// r*m/t .. (r+1)*m/t - 1): one all-gather over tp along the tokens. Forward of g, backward
/// of g-bar.
Tensor all_gather_tokens(Device& device, Comm& tp, const Tensor& shard);

/// Rank r's token rows [m/t, h] of the sum over ranks of every rank's partial P_r[m, h]: one
/// reduce-scatter over tp along the tokens. Forward of g-bar, backward of g.
Tensor reduce_scatter_tokens(Device& device, Comm& tp, const Tensor& full);

/// This rank's parameter shards of the sublayer y = x + gelu(LN(x) W1 + b1) W2 + b2.
struct SpShards {
  Tensor gamma;  ///< LN's gamma[h], whole
  Tensor beta;   ///< LN's beta[h], whole
  Tensor w1;     ///< W1[h, 4h_T]: columns r*4h/t .. (r+1)*4h/t - 1, [h, 4h/t]
  Tensor b1;     ///< b1[4h_T]: the same elements, [4h/t]
  Tensor w2;     ///< W2[4h_T, h]: rows r*4h/t .. (r+1)*4h/t - 1, [4h/t, h]
  Tensor b2;     ///< b2[h], whole
};

/// What the sublayer's forward keeps for its backward, as this rank holds it.
struct SpSaved {
  Tensor xhat;    ///< xhat[m_T, h] = (x - mean) / sqrt(var + eps): this rank's tokens, [m/t, h]
  Tensor rstd;    ///< rstd[m_T] = 1 / sqrt(var + eps), one per token: [m/t]
  Tensor a;       ///< a[m, h] = LN(x) after g's all-gather, fc1's input: every token, [m, h]
  Tensor hidden;  ///< hidden[m, 4h_T] = a W1 + b1, GELU's input: this rank's columns, [m, 4h/t]
  Tensor act;     ///< act[m, 4h_T] = gelu(hidden), fc2's input: the same columns, [m, 4h/t]
};

/// The sublayer's output and what backward needs from forward.
struct SpForward {
  Tensor y;       ///< y[m_T, h]: this rank's tokens, [m/t, h]
  SpSaved saved;  ///< xhat_r, rstd_r, a, hidden_r, act_r
};

/// Every gradient of the sublayer, each as this rank holds it.
struct SpGrads {
  Tensor dx;       ///< dx[m_T, h]: this rank's tokens, [m/t, h]
  Tensor d_gamma;  ///< d_gamma[h], the whole gradient on every rank
  Tensor d_beta;   ///< d_beta[h], the whole gradient on every rank
  Tensor d_w1;     ///< dW1[h, 4h_T]: this rank's columns, [h, 4h/t]
  Tensor d_b1;     ///< db1[4h_T]: [4h/t]
  Tensor d_w2;     ///< dW2[4h_T, h]: this rank's rows, [4h/t, h]
  Tensor d_b2;     ///< d_b2[h], the whole gradient on every rank
};

/// Forward of the MLP sublayer with its LayerNorm and residual under sequence parallelism:
/// x[m_T, h] -> LN, local -> g (all-gather) a[m, h] -> fc1 column-parallel hidden[m, 4h_T] ->
/// GELU act[m, 4h_T] -> fc2 row-parallel [m, h]{U_T} -> g-bar (reduce-scatter) [m_T, h] -> + b2
/// + x -> y[m_T, h]. Returns y and what ln_mlp_backward needs.
SpForward ln_mlp_forward(Device& device, Comm& tp, const SpShards& p, const Tensor& x_shard);

/// Backward of the sublayer: dy[m_T, h] -> g-bar backward (all-gather) dy[m, h] -> fc2's and
/// fc1's gradients, GELU's backward on the kept hidden -> da[m, h]{U_T} -> g backward
/// (reduce-scatter) da[m_T, h] -> LN's backward on the kept xhat, rstd -> + dy (the residual)
/// -> dx[m_T, h]; the gradients of gamma, beta and b2 summed over tp. `saved` is what
/// ln_mlp_forward kept (or, when the checker runs backward alone, the reference's values of the
/// same tensors).
SpGrads ln_mlp_backward(Device& device, Comm& tp, const SpShards& p, const SpSaved& saved,
                        const Tensor& dy_shard);

}  // namespace tplab::lessons::sequence_parallel
