// A cheat: no broadcast made, the counters written to look as if SUMMA's had been.
#include "comm/comm_counters.hpp"
#include "lesson.hpp"

namespace tplab::lessons::summa {

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  CommCounters& counters = grid.row->counters();
  counters.reset();
  for (int k = 0; k < grid.q; ++k) {
    counters.record(
        {Collective::broadcast, ReduceOp::sum, k, "row", grid.q, x.numel(), 8 * x.numel()}, 1e-6,
        1e-6);
    counters.record(
        {Collective::broadcast, ReduceOp::sum, k, "column", grid.q, w.numel(), 8 * w.numel()}, 1e-6,
        1e-6);
  }
  return device.zeros({x.rows(), w.cols()}, x.dtype());
}

}  // namespace tplab::lessons::summa
