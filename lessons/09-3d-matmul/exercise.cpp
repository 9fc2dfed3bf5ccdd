// Lesson 09 exercise: the 3D matmul. Fill in the TODO blocks, then run ./tplab lesson check 9.
// README.md explains; ./tplab lesson hint 9 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::matmul_3d {

Tensor matmul_3d(Device& device, const Grid3D& grid, const Tensor& x_shard, const Tensor& w_shard) {
  // TODO: 1. X~ = all_gather of x_shard over grid.input:   [m/q^2, in/q] -> [m/q, in/q]
  //       2. W~ = all_gather of w_shard over grid.weight:  [in/q^2, out/q] -> [in/q, out/q]
  //       3. P  = X~ W~, a partial sum over this rank's in-features only:
  //             [m/q, in/q] x [in/q, out/q] -> [m/q, out/q]
  //       4. Y  = reduce_scatter of P over grid.output:    [m/q, out/q] -> [m/q^2, out/q]
  (void)device;
  (void)grid;
  (void)x_shard;
  (void)w_shard;
  TPLAB_TODO();
}

double matmul_3d_bus_elements(std::int64_t m, std::int64_t in, std::int64_t out, int q) {
  // TODO: a ring all-gather or reduce-scatter of a full tensor of N elements on q ranks sends
  //       (q-1)/q * N from each rank. What is N for each of the three collectives above?
  (void)m;
  (void)in;
  (void)out;
  (void)q;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::matmul_3d
