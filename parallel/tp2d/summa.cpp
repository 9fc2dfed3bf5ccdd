#include "tp2d/summa.hpp"

namespace tplab::tp2d {
namespace {

/// One step's block of a broadcast operand, and its arrival.
struct Panel {
  Tensor block;
  CommRequest arrival;  ///< complete at once unless the mesh overlaps
};

/// The block `mine` as held by the rank of `group` whose index is `owner`, on every rank of
/// the group: the owner sends its own block, the others receive into a fresh one. With
/// `overlap` the broadcast is only started: wait for panel.arrival before reading the block.
Panel broadcast_block(Device& device, Comm& group, const Tensor& mine, int owner, bool overlap) {
  Panel panel;
  panel.block = group.rank() == owner ? mine : device.empty(mine.extents(), mine.dtype());
  if (overlap) {
    panel.arrival = group.start_broadcast(panel.block, owner);
  } else {
    group.broadcast(panel.block, owner);
  }
  return panel;
}

/// Sums `partial` over `group` into the rank whose index is `owner`; returns the sum there.
void reduce_to(Comm& group, Tensor& partial, Tensor& result, int owner) {
  group.reduce(partial, group.rank() == owner ? result : partial, owner);
}

}  // namespace

// Each loop below fetches step t+1's panels before step t's product: started, they travel
// during it when the mesh overlaps; otherwise they have arrived before it begins. Either way
// the products and sums run in the same order, so the results are the same bits.

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  Tensor y = device.zeros({x.rows(), w.cols()}, x.dtype());
  const auto panels = [&](int t) {
    return std::pair{broadcast_block(device, *grid.row, x, t, grid.overlap),      // X(i,t)
                     broadcast_block(device, *grid.column, w, t, grid.overlap)};  // W(t,j)
  };
  auto next = panels(0);
  for (int t = 0; t < grid.q; ++t) {
    auto [x_it, w_tj] = std::move(next);
    x_it.arrival.wait();
    w_tj.arrival.wait();
    if (t + 1 < grid.q) next = panels(t + 1);
    // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q], accumulated over t
    device.matmul(x_it.block, Transpose::no, w_tj.block, Transpose::no, y, 1.0, 1.0);
  }
  return y;
}

Tensor summa_input_gradient(Device& device, Grid2D& grid, const Tensor& dy, const Tensor& w) {
  Tensor dx = device.empty({dy.rows(), w.rows()}, dy.dtype());
  Tensor partial = device.empty(dx.extents(), dy.dtype());
  Panel next = broadcast_block(device, *grid.column, w, 0, grid.overlap);
  for (int t = 0; t < grid.q; ++t) {
    Panel w_tj = std::move(next);  // W(t,j)
    w_tj.arrival.wait();
    if (t + 1 < grid.q) next = broadcast_block(device, *grid.column, w, t + 1, grid.overlap);
    // [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q]: this column's share of dX(i,t)
    device.matmul(dy, Transpose::no, w_tj.block, Transpose::yes, partial);
    reduce_to(*grid.row, partial, dx, t);
  }
  return dx;
}

Tensor summa_weight_gradient(Device& device, Grid2D& grid, const Tensor& x, const Tensor& dy) {
  Tensor dw = device.empty({x.cols(), dy.cols()}, dy.dtype());
  Tensor partial = device.empty(dw.extents(), dy.dtype());
  Panel next = broadcast_block(device, *grid.row, x, 0, grid.overlap);
  for (int t = 0; t < grid.q; ++t) {
    Panel x_it = std::move(next);  // X(i,t)
    x_it.arrival.wait();
    if (t + 1 < grid.q) next = broadcast_block(device, *grid.row, x, t + 1, grid.overlap);
    // [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q]: this row's share of dW(t,j)
    device.matmul(x_it.block, Transpose::yes, dy, Transpose::no, partial);
    reduce_to(*grid.column, partial, dw, t);
  }
  return dw;
}

}  // namespace tplab::tp2d
