#include "tp2d/summa.hpp"

namespace tplab::tp2d {
namespace {

/// The block `mine` as held by the rank of `group` whose index is `owner`, on every rank of
/// the group: the owner sends its own block, the others receive into a fresh one. With
/// overlap the broadcast is only started: read the block through wait().
PendingTensor broadcast_block(Device& device, Comm& group, const Tensor& mine, int owner,
                              const ExecutionPolicy& policy) {
  PendingTensor panel;
  panel.tensor = group.rank() == owner ? mine : device.empty(mine.extents(), mine.dtype());
  panel.arrival = policy.broadcast(group, panel.tensor, owner);
  return panel;
}

/// Where a backward product puts the broadcast panel: on the left, transposed (dW = X^T dY),
/// or on the right, transposed (dX = dY W^T).
enum class PanelSide { left_transposed, right_transposed };

/// The loop both backward forms share: at step t the owner of `mine` (index t of
/// `broadcast_group`) broadcasts its block, every rank multiplies it with `local`, and the
/// products are reduced over `reduce_group` to its rank t, which keeps the sum in `result`.
/// The product is panel^T local (left_transposed) or local panel^T (right_transposed).
void broadcast_multiply_reduce(Device& device, Comm& broadcast_group, Comm& reduce_group,
                               const Tensor& mine, const Tensor& local, PanelSide side,
                               Tensor& result, const ExecutionPolicy& policy) {
  Tensor partial = device.empty(result.extents(), local.dtype());
  PendingTensor next = broadcast_block(device, broadcast_group, mine, 0, policy);
  for (int t = 0; t < broadcast_group.size(); ++t) {
    PendingTensor panel = std::move(next);
    const Tensor& block = panel.wait();
    if (t + 1 < broadcast_group.size()) {
      next = broadcast_block(device, broadcast_group, mine, t + 1, policy);
    }
    if (side == PanelSide::left_transposed) {
      device.matmul(block, Transpose::yes, local, Transpose::no, partial);
    } else {
      device.matmul(local, Transpose::no, block, Transpose::yes, partial);
    }
    // Blocking: the next step's product overwrites partial.
    reduce_group.reduce(partial, reduce_group.rank() == t ? result : partial, t);
  }
}

}  // namespace

// Each loop below fetches step t+1's panels before step t's product: started, they travel
// during it when the policy overlaps; otherwise they have arrived before it begins. Either way
// the products and sums run in the same order, so the results are the same bits.

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w,
                     ExecutionPolicy policy) {
  Tensor y = device.zeros({x.rows(), w.cols()}, x.dtype());
  const auto panels = [&](int t) {
    return std::pair{broadcast_block(device, *grid.row, x, t, policy),      // X(i,t)
                     broadcast_block(device, *grid.column, w, t, policy)};  // W(t,j)
  };
  auto next = panels(0);
  for (int t = 0; t < grid.q; ++t) {
    auto [x_it, w_tj] = std::move(next);
    x_it.wait();
    w_tj.wait();
    if (t + 1 < grid.q) next = panels(t + 1);
    // [m/q, in/q] x [in/q, out/q] -> [m/q, out/q], accumulated over t
    device.matmul(x_it.tensor, Transpose::no, w_tj.tensor, Transpose::no, y, 1.0, 1.0);
  }
  return y;
}

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  return summa_forward(device, grid, x, w, ExecutionPolicy{});
}

Tensor summa_input_gradient(Device& device, Grid2D& grid, const Tensor& dy, const Tensor& w,
                            ExecutionPolicy policy) {
  Tensor dx = device.empty({dy.rows(), w.rows()}, dy.dtype());
  // step t: W(t,j) along column j; [m/q, out/q] x [in/q, out/q]^T -> [m/q, in/q], this
  // column's share of dX(i,t), reduced along row i to rank (i, t)
  broadcast_multiply_reduce(device, *grid.column, *grid.row, w, dy, PanelSide::right_transposed, dx,
                            policy);
  return dx;
}

Tensor summa_weight_gradient(Device& device, Grid2D& grid, const Tensor& x, const Tensor& dy,
                             ExecutionPolicy policy) {
  Tensor dw = device.empty({x.cols(), dy.cols()}, dy.dtype());
  // step t: X(i,t) along row i; [m/q, in/q]^T x [m/q, out/q] -> [in/q, out/q], this row's
  // share of dW(t,j), reduced along column j to rank (t, j)
  broadcast_multiply_reduce(device, *grid.row, *grid.column, x, dy, PanelSide::left_transposed, dw,
                            policy);
  return dw;
}

}  // namespace tplab::tp2d
