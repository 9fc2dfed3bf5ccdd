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
  Tensor gamma;  ///< LN's gamma, whole: [h]
  Tensor beta;   ///< LN's beta, whole: [h]
  Tensor w1;     ///< W1[:, r*4h/t : (r+1)*4h/t]: [h, 4h/t]
  Tensor b1;     ///< b1[r*4h/t : (r+1)*4h/t]: [4h/t]
  Tensor w2;     ///< W2[r*4h/t : (r+1)*4h/t, :]: [4h/t, h]
  Tensor b2;     ///< b2, whole: [h]
};

/// The sublayer's output and every gradient, each as this rank holds it.
struct SpResult {
  Tensor y;        ///< y_r: this rank's tokens of y [m/t, h]
  Tensor dx;       ///< dx_r: this rank's tokens of dx [m/t, h]
  Tensor d_gamma;  ///< [h], the whole gradient on every rank
  Tensor d_beta;   ///< [h], the whole gradient on every rank
  Tensor d_w1;     ///< dW1 shard [h, 4h/t]
  Tensor d_b1;     ///< db1 shard [4h/t]
  Tensor d_w2;     ///< dW2 shard [4h/t, h]
  Tensor d_b2;     ///< [h], the whole gradient on every rank
};

/// Forward and backward of the MLP sublayer with its LayerNorm and residual under sequence
/// parallelism: x_r [m/t, h] -> LN, local -> g (all-gather) [m, h] -> fc1 column-parallel
/// [m, 4h/t] -> GELU -> fc2 row-parallel, partial [m, h] -> g-bar (reduce-scatter) [m/t, h]
/// -> + b2 + x_r; then dy_r [m/t, h] back to dx_r and the gradients.
SpResult ln_mlp_sequence_parallel(Device& device, Comm& tp, const SpShards& p,
                                  const Tensor& x_shard, const Tensor& dy_shard);

}  // namespace tplab::lessons::sequence_parallel
