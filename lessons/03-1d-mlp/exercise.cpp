// Lesson 03 exercise: the operators f and g, then the 1D MLP's forward and its backward with them.
// Fill in the TODO blocks, then run ./tplab lesson check 3. README.md explains the idea;
// ./tplab lesson hint 3 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::mlp_1d {

const Tensor& f_forward(const Tensor& x) {
  // TODO: f stands before a column-parallel layer whose input is replicated. Forward, it ...?
  (void)x;
  TPLAB_TODO();
}

void f_backward(Comm& tp, Tensor& dx) {
  // TODO: each rank's dx is only its own columns' share of dX: sum the shares over tp.
  (void)tp;
  (void)dx;
  TPLAB_TODO();
}

void g_forward(Comm& tp, Tensor& y) {
  // TODO: each rank's y is a partial product over its rows of W2: sum the partials over tp.
  (void)tp;
  (void)y;
  TPLAB_TODO();
}

const Tensor& g_backward(const Tensor& dy) {
  // TODO: g stands after a row-parallel layer; dY arrives replicated. Backward, it ...?
  (void)dy;
  TPLAB_TODO();
}

MlpForward mlp_forward(Device& device, Comm& tp, const MlpShards& p, const Tensor& x) {
  MlpForward r;
  // TODO, with your f and g:
  //   hidden = f(X) W1_r + b1_r        [m, h] x [h, 4h/t] -> [m, 4h/t]   (device.matmul, add_bias)
  //   act    = gelu(hidden)            local: every element of hidden is whole on this rank
  //   r.y    = g(act W2_r) + b2        [m, 4h/t] x [4h/t, h] -> [m, h]   (b2 after g, once)
  //   r.saved = {X, hidden, act}       what mlp_backward reads
  (void)device;
  (void)tp;
  (void)p;
  (void)x;
  TPLAB_TODO();
  return r;
}

MlpGrads mlp_backward(Device& device, Comm& tp, const MlpShards& p, const MlpSaved& saved,
                      const Tensor& dy) {
  MlpGrads r;
  // TODO, from dY = g_backward(dy) and saved = {X, hidden, act}:
  //   r.d_b2 = column sums of dY;      r.d_w2 = act^T dY        [4h/t, m] x [m, h] -> [4h/t, h]
  //   dact   = dY W2_r^T               [m, h] x [h, 4h/t] -> [m, 4h/t]
  //   dhidden = gelu'(hidden) * dact   (device.gelu_backward)
  //   r.d_b1 = column sums of dhidden; r.d_w1 = X^T dhidden     [h, m] x [m, 4h/t] -> [h, 4h/t]
  //   r.dx   = dhidden W1_r^T, then f_backward: a partial sum until all ranks' shares are added
  //            [m, 4h/t] x [4h/t, h] -> [m, h]
  (void)device;
  (void)tp;
  (void)p;
  (void)saved;
  (void)dy;
  TPLAB_TODO();
  return r;
}

}  // namespace tplab::lessons::mlp_1d
