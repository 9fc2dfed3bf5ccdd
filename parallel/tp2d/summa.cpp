#include "tp2d/summa.hpp"

namespace tplab::tp2d {
namespace {

/// The block `mine` as held by the rank of `group` whose index is `owner`, on every rank of
/// the group: the owner sends its own block, the others receive into a fresh one.
Tensor broadcast_block(Device& device, Comm& group, const Tensor& mine, int owner) {
  Tensor panel = group.rank() == owner ? mine : device.empty(mine.extents(), mine.dtype());
  group.broadcast(panel, owner);
  return panel;
}

/// Sums `partial` over `group` into the rank whose index is `owner`; returns the sum there.
void reduce_to(Comm& group, Tensor& partial, Tensor& result, int owner) {
  group.reduce(partial, group.rank() == owner ? result : partial, owner);
}

}  // namespace

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  Tensor y = device.zeros({x.rows(), w.cols()}, x.dtype());
  for (int t = 0; t < grid.q; ++t) {
    const Tensor x_it = broadcast_block(device, *grid.row, x, t);     // X(i,t)
    const Tensor w_tj = broadcast_block(device, *grid.column, w, t);  // W(t,j)
    // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q], accumulated over t
    device.matmul(x_it, Transpose::no, w_tj, Transpose::no, y, 1.0, 1.0);
  }
  return y;
}

Tensor summa_input_gradient(Device& device, Grid2D& grid, const Tensor& dy, const Tensor& w) {
  Tensor dx = device.empty({dy.rows(), w.rows()}, dy.dtype());
  Tensor partial = device.empty(dx.extents(), dy.dtype());
  for (int t = 0; t < grid.q; ++t) {
    const Tensor w_tj = broadcast_block(device, *grid.column, w, t);  // W(t,j)
    // [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q]: this column's share of dX(i,t)
    device.matmul(dy, Transpose::no, w_tj, Transpose::yes, partial);
    reduce_to(*grid.row, partial, dx, t);
  }
  return dx;
}

Tensor summa_weight_gradient(Device& device, Grid2D& grid, const Tensor& x, const Tensor& dy) {
  Tensor dw = device.empty({x.cols(), dy.cols()}, dy.dtype());
  Tensor partial = device.empty(dw.extents(), dy.dtype());
  for (int t = 0; t < grid.q; ++t) {
    const Tensor x_it = broadcast_block(device, *grid.row, x, t);  // X(i,t)
    // [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q]: this row's share of dW(t,j)
    device.matmul(x_it, Transpose::yes, dy, Transpose::no, partial);
    reduce_to(*grid.column, partial, dw, t);
  }
  return dw;
}

}  // namespace tplab::tp2d
