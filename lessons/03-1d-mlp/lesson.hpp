/// @file
/// Lesson 03: the 1D MLP and Megatron's conjugate operators f and g. The functions the exercise
/// fills in.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::mlp_1d {

/// f forward: the identity. X is already replicated on every rank of tp.
const Tensor& f_forward(const Tensor& x);
/// f backward: dX = sum over the ranks of tp of the partial dX_r, in place, on every rank.
void f_backward(Comm& tp, Tensor& dx);
/// g forward: Y = sum over the ranks of tp of the partial Y_r, in place, on every rank.
void g_forward(Comm& tp, Tensor& y);
/// g backward: the identity. dY is already replicated on every rank of tp.
const Tensor& g_backward(const Tensor& dy);

/// This rank's parameter shards of the MLP Y = gelu(X W1 + b1) W2 + b2.
struct MlpShards {
  Tensor w1;  ///< W1[:, r*4h/t : (r+1)*4h/t]: [h, 4h/t]
  Tensor b1;  ///< b1[r*4h/t : (r+1)*4h/t]: [4h/t]
  Tensor w2;  ///< W2[r*4h/t : (r+1)*4h/t, :]: [4h/t, h]
  Tensor b2;  ///< b2 whole: [h]
};

/// The MLP's output and every gradient, each as this rank holds it.
struct MlpResult {
  Tensor y;     ///< Y [m, h], replicated
  Tensor dx;    ///< dX [m, h], replicated
  Tensor d_w1;  ///< dW1 shard [h, 4h/t]
  Tensor d_b1;  ///< db1 shard [4h/t]
  Tensor d_w2;  ///< dW2 shard [4h/t, h]
  Tensor d_b2;  ///< db2 [h], the same on every rank
};

/// Forward and backward of the 1D MLP on this rank: X[m, h] (replicated) -> f -> column-parallel
/// fc1 [m, 4h/t] -> GELU -> row-parallel fc2 -> g -> + b2 -> Y[m, h]; then dY[m, h] back to dX
/// and the gradient shards. One all-reduce forward (g), one backward (f).
MlpResult mlp_1d(Device& device, Comm& tp, const MlpShards& p, const Tensor& x, const Tensor& dy);

}  // namespace tplab::lessons::mlp_1d
