// Lesson 06 exercise: SUMMA, the broadcast-and-accumulate loop of 2D tensor parallelism. Fill
// in the TODO block, then run ./tplab lesson check 6. README.md explains the idea;
// ./tplab lesson hint 6 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::summa {

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  // TODO: Y(i,j) starts at zero [m/q, out/q]. For k = 0 .. q-1:
  //         X(i,k) is held by rank k of grid.row: it broadcasts it to its row;
  //         W(k,j) is held by rank k of grid.column: it broadcasts it to its column;
  //         every rank adds X(i,k) W(k,j)      [m/q, in/q] x [in/q, out/q] -> [m/q, out/q]
  //       Broadcast works in place: the root sends its tensor, the others receive into theirs,
  //       so a receiver needs a fresh tensor of the same extents (never overwrite x or w).
  (void)device;
  (void)grid;
  (void)x;
  (void)w;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::summa
