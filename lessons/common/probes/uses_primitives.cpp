// A probe of the exercise fence (lessons/CMakeLists.txt): an exercise written with the
// primitives only, a column-parallel matmul and an all-reduce. It must build.
#include "comm/comm.hpp"
#include "device/device.hpp"
#include "lessons/common/exercise.hpp"

namespace tplab::lessons::probe {

Tensor row_parallel_matmul(Device& device, Comm& tp, const Tensor& x_shard, const Tensor& w_shard) {
  Tensor y = device.empty({x_shard.rows(), w_shard.cols()}, x_shard.dtype());
  // [m, in/t] x [in/t, out] -> [m, out]   (a partial sum over this rank's rows of W)
  device.matmul(x_shard, Transpose::no, w_shard, Transpose::no, y);
  tp.all_reduce(y);
  return y;
}

}  // namespace tplab::lessons::probe
