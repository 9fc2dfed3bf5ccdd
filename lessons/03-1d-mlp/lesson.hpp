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
  Tensor w1;  ///< W1[h, 4h_T]: columns r*4h/t .. (r+1)*4h/t - 1, [h, 4h/t]
  Tensor b1;  ///< b1[4h_T]: the same elements, [4h/t]
  Tensor w2;  ///< W2[4h_T, h]: rows r*4h/t .. (r+1)*4h/t - 1, [4h/t, h]
  Tensor b2;  ///< b2[h], whole
};

/// What the MLP's forward keeps for its backward, as this rank holds it.
struct MlpSaved {
  Tensor x;       ///< X[m, h], fc1's input: replicated, [m, h]
  Tensor hidden;  ///< H[m, 4h_T] = X W1 + b1, GELU's input: this rank's columns, [m, 4h/t]
  Tensor act;     ///< A[m, 4h_T] = gelu(H), fc2's input: the same columns, [m, 4h/t]
};

/// The MLP's output and what backward needs from forward.
struct MlpForward {
  Tensor y;        ///< Y[m, h], replicated
  MlpSaved saved;  ///< X, H_r and A_r
};

/// Every gradient of the MLP, each as this rank holds it.
struct MlpGrads {
  Tensor dx;    ///< dX[m, h], replicated
  Tensor d_w1;  ///< dW1[h, 4h_T]: this rank's columns, [h, 4h/t]
  Tensor d_b1;  ///< db1[4h_T]: [4h/t]
  Tensor d_w2;  ///< dW2[4h_T, h]: this rank's rows, [4h/t, h]
  Tensor d_b2;  ///< db2[h], the same on every rank
};

/// Forward of the 1D MLP on this rank: X[m, h] (replicated) -> f -> column-parallel fc1
/// H[m, 4h_T] -> GELU A[m, 4h_T] -> row-parallel fc2 [m, h]{U_T} -> g -> + b2 -> Y[m, h].
/// One all-reduce (g). Returns Y and what mlp_backward needs (X, H_r, A_r).
MlpForward mlp_forward(Device& device, Comm& tp, const MlpShards& p, const Tensor& x);

/// Backward of the 1D MLP on this rank: dY[m, h] (replicated) -> g backward -> fc2's
/// gradients -> GELU's backward on the kept H_r -> fc1's gradients -> dX[m, h]{U_T} -> f
/// backward -> dX[m, h]. One all-reduce (f). `saved` is what mlp_forward kept (or, when the
/// checker runs backward alone, the reference's values of the same tensors).
MlpGrads mlp_backward(Device& device, Comm& tp, const MlpShards& p, const MlpSaved& saved,
                      const Tensor& dy);

}  // namespace tplab::lessons::mlp_1d
