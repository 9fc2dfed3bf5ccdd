// A probe of the exercise fence (lessons/CMakeLists.txt): an exercise that declares the
// library's SUMMA by hand instead of including its header. It compiles; the link check must
// refuse it, naming tplab::tp2d::summa_forward.
#include "device/device.hpp"
#include "grid/grid_2d.hpp"

namespace tplab::tp2d {
Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w);
}  // namespace tplab::tp2d

namespace tplab::lessons::probe {

Tensor summa(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  return tp2d::summa_forward(device, grid, x, w);
}

}  // namespace tplab::lessons::probe
