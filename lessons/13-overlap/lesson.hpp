/// @file
/// Lesson 13: overlapping communication with computation. The backward of the 1D MLP with the
/// all-reduce of dX started early and waited for late; the function the exercise fills in.
#pragma once

#include "comm/comm.hpp"
#include "device/device.hpp"

namespace tplab::lessons::overlap {

/// This rank's parameter shards of the MLP Y = gelu(X W1 + b1) W2 + b2 (lesson 03).
struct MlpShards {
  Tensor w1;  ///< W1[h, 4h_T]: [h, 4h/t]
  Tensor b1;  ///< b1[4h_T]: [4h/t]
  Tensor w2;  ///< W2[4h_T, h]: [4h/t, h]
  Tensor b2;  ///< b2[h], whole
};

/// What the forward kept for the backward, on this rank.
struct MlpSaved {
  Tensor x;       ///< X[m, h], whole: fc1's input
  Tensor hidden;  ///< fc1's output before GELU, H[m, 4h_T]: [m, 4h/t]
  Tensor act;     ///< gelu(hidden), fc2's input: [m, 4h/t]
};

/// The MLP's gradients, each as this rank holds it.
struct MlpGradients {
  Tensor dx;    ///< dX[m, h], whole on every rank (after f's all-reduce)
  Tensor d_w1;  ///< dW1[h, 4h_T]: [h, 4h/t]
  Tensor d_b1;  ///< db1[4h_T]: [4h/t]
  Tensor d_w2;  ///< dW2[4h_T, h]: [4h/t, h]
  Tensor d_b2;  ///< db2[h], the same on every rank
};

/// The backward of the 1D MLP from dY[m, h] (whole on every rank), with its one collective
/// overlapped: the partial dX[m, h]{U_T} = dH W1_r^T is computed first, its all-reduce over tp
/// is started (Comm::start_all_reduce), the weight and bias gradients, which do not need dX,
/// are computed while it is in flight, and the request is waited for last.
MlpGradients mlp_backward_overlapped(Device& device, Comm& tp, const MlpShards& p,
                                     const MlpSaved& saved, const Tensor& dy);

}  // namespace tplab::lessons::overlap
