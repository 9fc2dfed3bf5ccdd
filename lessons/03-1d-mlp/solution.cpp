// Lesson 03, the answer: the operators f and g, and the 1D MLP's forward and backward written
// out with the Device operations, in the order of the library's Mlp1D.
#include "lesson.hpp"

namespace tplab::lessons::mlp_1d {

// The library's f and g: parallel/tp1d/conjugate_operators.hpp, CopyToTensorParallelRegion and
// ReduceFromTensorParallelRegion.
const Tensor& f_forward(const Tensor& x) {
  return x;  // X is already whole on every rank
}

void f_backward(Comm& tp, Tensor& dx) {
  tp.all_reduce(dx);  // each rank's dX covers only its own columns of W1: sum the shares
}

void g_forward(Comm& tp, Tensor& y) {
  tp.all_reduce(y);  // each rank's Y is a partial product over its rows of W2
}

const Tensor& g_backward(const Tensor& dy) {
  return dy;  // dY is already whole on every rank
}

// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::forward, with fc1 a
// ColumnParallelLinear (parallel/tp1d/column_parallel_linear.cpp, ColumnParallelLinear::apply)
// and fc2 a RowParallelLinear (parallel/tp1d/row_parallel_linear.cpp,
// RowParallelLinear::forward).
MlpForward mlp_forward(Device& device, Comm& tp, const MlpShards& p, const Tensor& x) {
  const DType dtype = x.dtype();
  const std::int64_t m = x.rows();
  MlpForward r;
  const Tensor& input = f_forward(x);
  Tensor hidden = device.empty({m, p.w1.cols()}, dtype);
  // [m, h] x [h, 4h/t] -> [m, 4h/t]
  device.matmul(input, Transpose::no, p.w1, Transpose::no, hidden);
  device.add_bias(hidden, p.b1);
  Tensor act = device.empty(hidden.extents(), dtype);
  device.gelu_forward(hidden, act);  // local: every element of hidden is whole here
  r.y = device.empty({m, p.w2.cols()}, dtype);
  // [m, 4h/t] x [4h/t, h] -> [m, h]   (a partial sum over this rank's rows of W2)
  device.matmul(act, Transpose::no, p.w2, Transpose::no, r.y);
  g_forward(tp, r.y);
  device.add_bias(r.y, p.b2);  // after the sum, so b2 is added once
  r.saved = {input, hidden, act};
  return r;
}

// The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward, with fc2's backward in
// parallel/tp1d/row_parallel_linear.cpp, RowParallelLinear::backward, and fc1's in
// parallel/tp1d/column_parallel_linear.cpp, ColumnParallelLinear::input_grad and
// ColumnParallelLinear::weight_grads.
MlpGrads mlp_backward(Device& device, Comm& tp, const MlpShards& p, const MlpSaved& saved,
                      const Tensor& dy) {
  const DType dtype = dy.dtype();
  MlpGrads r;
  const Tensor& grad = g_backward(dy);
  r.d_b2 = device.empty(p.b2.extents(), dtype);
  device.column_sum(grad, r.d_b2);
  r.d_w2 = device.empty(p.w2.extents(), dtype);
  // [m, 4h/t]^T x [m, h] -> [4h/t, h]
  device.matmul(saved.act, Transpose::yes, grad, Transpose::no, r.d_w2);
  Tensor dact = device.empty(saved.act.extents(), dtype);
  // [m, h] x [4h/t, h]^T -> [m, 4h/t]
  device.matmul(grad, Transpose::no, p.w2, Transpose::yes, dact);
  Tensor dhidden = device.empty(saved.hidden.extents(), dtype);
  device.gelu_backward(saved.hidden, dact, dhidden);
  r.dx = device.empty(saved.x.extents(), dtype);
  // [m, 4h/t] x [h, 4h/t]^T -> [m, h]   (a partial sum: this rank's columns of W1 only)
  device.matmul(dhidden, Transpose::no, p.w1, Transpose::yes, r.dx);
  f_backward(tp, r.dx);
  r.d_w1 = device.empty(p.w1.extents(), dtype);
  // [m, h]^T x [m, 4h/t] -> [h, 4h/t]
  device.matmul(saved.x, Transpose::yes, dhidden, Transpose::no, r.d_w1);
  r.d_b1 = device.empty(p.b1.extents(), dtype);
  device.column_sum(dhidden, r.d_b1);
  return r;
}

}  // namespace tplab::lessons::mlp_1d
