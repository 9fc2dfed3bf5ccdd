// Lesson 13, the answer: the 1D MLP's backward written out with the Device operations, the
// all-reduce of dX started before the weight gradients and waited for after them.
#include "lesson.hpp"

namespace tplab::lessons::overlap {

// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward, with
// ExecutionPolicy{.overlap = true}; the start is f's backward in
// parallel/tp1d/conjugate_operators.cpp, CopyToTensorParallelRegion::backward. The library
// computes dW2 before dX (in RowParallelLinear::backward), so only dW1 and db1 travel beside
// its all-reduce; here dW2 and db2 wait until the all-reduce is started, and travel beside it
// too.
MlpGradients mlp_backward_overlapped(Device& device, Comm& tp, const MlpShards& p,
                                     const MlpSaved& saved, const Tensor& dy) {
  const DType dtype = dy.dtype();
  MlpGradients g;

  // ---- the critical path: what dX needs
  Tensor dact = device.empty(saved.act.extents(), dtype);
  // [m, h] x [4h/t, h]^T -> [m, 4h/t]
  device.matmul(dy, Transpose::no, p.w2, Transpose::yes, dact);
  Tensor dhidden = device.empty(saved.hidden.extents(), dtype);
  device.gelu_backward(saved.hidden, dact, dhidden);
  g.dx = device.empty(saved.x.extents(), dtype);
  // [m, 4h/t] x [h, 4h/t]^T -> [m, h]   (a partial sum: this rank's columns of W1 only)
  device.matmul(dhidden, Transpose::no, p.w1, Transpose::yes, g.dx);
  CommRequest dx_sum = tp.start_all_reduce(g.dx);  // f's backward, started

  // ---- beside it: every weight and bias gradient, none of which reads dX
  g.d_w2 = device.empty(p.w2.extents(), dtype);
  // [m, 4h/t]^T x [m, h] -> [4h/t, h]
  device.matmul(saved.act, Transpose::yes, dy, Transpose::no, g.d_w2);
  g.d_b2 = device.empty(p.b2.extents(), dtype);
  device.column_sum(dy, g.d_b2);
  g.d_w1 = device.empty(p.w1.extents(), dtype);
  // [m, h]^T x [m, 4h/t] -> [h, 4h/t]
  device.matmul(saved.x, Transpose::yes, dhidden, Transpose::no, g.d_w1);
  g.d_b1 = device.empty(p.b1.extents(), dtype);
  device.column_sum(dhidden, g.d_b1);

  dx_sum.wait();  // only now is g.dx the sum over every rank
  return g;
}

}  // namespace tplab::lessons::overlap
