// A cheat: the right block on rank 0 (when it holds the whole of Y), zeros everywhere else.
#include "lesson.hpp"

namespace tplab::lessons::summa {

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  Tensor y = device.zeros({x.rows(), w.cols()}, x.dtype());
  if (grid.q == 1) device.matmul(x, Transpose::no, w, Transpose::no, y, 1.0, 0.0);
  return y;
}

}  // namespace tplab::lessons::summa
