// Lesson 02 exercise: split a matmul by the rows of W (and the columns of X). Fill in the TODO
// block, then run ./tplab lesson check 2. README.md explains; ./tplab lesson hint 2 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::row_split {

Tensor row_parallel_matmul(Device& device, Comm& tp, const Tensor& x_shard, const Tensor& w_shard) {
  // TODO: compute this rank's partial product P_r = X_r W_r, then sum the partials over tp.
  //       [m, in/t] x [in/t, out] -> [m, out]   (a partial sum: this rank's rows of W only)
  (void)device;
  (void)tp;
  (void)x_shard;
  (void)w_shard;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::row_split
