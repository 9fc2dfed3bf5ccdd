// A cheat: a solution by an absolute path (SOLUTION is replaced by the test with a real one).
#define summa_forward summa_forward_of_the_library
#include "SOLUTION"
#undef summa_forward
#include "lesson.hpp"

namespace tplab::lessons::summa {

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  return summa_forward_of_the_library(device, grid, x, w);
}

}  // namespace tplab::lessons::summa
