// Lesson 13 exercise: the 1D MLP's backward with the all-reduce of dX started as soon as its
// partial exists and waited for only when nothing else is left. Fill in the TODO block, then
// run ./tplab lesson check 13. README.md explains the idea; ./tplab lesson hint 13 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::overlap {

MlpGradients mlp_backward_overlapped(Device& device, Comm& tp, const MlpShards& p,
                                     const MlpSaved& saved, const Tensor& dy) {
  MlpGradients g;
  // TODO: the steps of lesson 03's backward, reordered so that the one collective has work
  //       beside it:
  //   1. dact    = dY W2_r^T             [m, h] x [4h/t, h]^T -> [m, 4h/t]
  //      dhidden = gelu'(hidden) * dact  (device.gelu_backward)
  //   2. g.dx    = dhidden W1_r^T        [m, 4h/t] x [h, 4h/t]^T -> [m, h], a partial sum:
  //      start its all-reduce now (tp.start_all_reduce returns a CommRequest) ...
  //   3. ... and while it travels: g.d_w2 = act^T dY    [4h/t, m] x [m, h] -> [4h/t, h]
  //                                g.d_w1 = X^T dhidden [h, m] x [m, 4h/t] -> [h, 4h/t]
  //                                g.d_b2, g.d_b1: column sums of dY and dhidden
  //   4. wait for the request: only then is g.dx the sum over every rank.
  //   Until the wait, g.dx must be neither read nor written.
  (void)device;
  (void)tp;
  (void)p;
  (void)saved;
  (void)dy;
  TPLAB_TODO();
  return g;
}

}  // namespace tplab::lessons::overlap
