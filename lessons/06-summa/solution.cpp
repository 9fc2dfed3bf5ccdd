// Lesson 06, the answer: SUMMA's forward written out, one broadcast along the row and one
// along the column per step, then one accumulating matmul.
#include "lesson.hpp"

namespace tplab::lessons::summa {

// The library's version: parallel/tp2d/summa.cpp, summa_forward, which can also start step
// k+1's broadcasts before step k's product (ExecutionPolicy::overlap).
Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  Tensor y = device.zeros({x.rows(), w.cols()}, x.dtype());
  for (int k = 0; k < grid.q; ++k) {
    // The owner sends its own block; every other rank receives into a fresh one.
    Tensor x_ik = grid.row->rank() == k ? x : device.empty(x.extents(), x.dtype());
    grid.row->broadcast(x_ik, k);  // X(i,k) along row i
    Tensor w_kj = grid.column->rank() == k ? w : device.empty(w.extents(), w.dtype());
    grid.column->broadcast(w_kj, k);  // W(k,j) along column j
    // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q], accumulated over k
    device.matmul(x_ik, Transpose::no, w_kj, Transpose::no, y, 1.0, 1.0);
  }
  return y;
}

}  // namespace tplab::lessons::summa
