// Lesson 01 exercise: split a matmul by the columns of W. Fill in the two TODO blocks, then
// run ./tplab lesson check 1. README.md explains the idea; ./tplab lesson hint 1 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::column_split {

Tensor column_parallel_matmul(Device& device, const Tensor& x, const Tensor& w_shard) {
  // TODO: make Y_r with device.empty({rows, cols}, x.dtype()) and fill it with device.matmul.
  //       [m, in] x [in, out/t] -> [m, out/t]
  (void)device;
  (void)x;
  (void)w_shard;
  TPLAB_TODO();
}

Tensor gather_columns(Device& device, Comm& tp, const Tensor& y_shard) {
  // TODO: all-gather the shards into [t*m, out/t] (rank r's shard in rows r*m..(r+1)*m-1),
  //       then put the t blocks of m rows side by side as the columns of Y[m, out].
  //       Device::merge_heads does that rearrangement: read its comment in device/device.hpp.
  (void)device;
  (void)tp;
  (void)y_shard;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::column_split
