// Lesson 02, the answer: the row split written out, a local matmul and operator g, the
// all-reduce of the partial products.
#include "lesson.hpp"

namespace tplab::lessons::row_split {

// The library's version: parallel/tp1d/row_parallel_linear.cpp, RowParallelLinear::forward,
// which adds the bias after the all-reduce, once.
Tensor row_parallel_matmul(Device& device, Comm& tp, const Tensor& x_shard, const Tensor& w_shard) {
  Tensor y = device.empty({x_shard.rows(), w_shard.cols()}, x_shard.dtype());
  // [m, in/t] x [in/t, out] -> [m, out]   (a partial sum over this rank's rows of W)
  device.matmul(x_shard, Transpose::no, w_shard, Transpose::no, y);
  tp.all_reduce(y);  // g: the sum of the t partials, on every rank
  return y;
}

}  // namespace tplab::lessons::row_split
