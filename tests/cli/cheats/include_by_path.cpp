// A cheat: a solution included under another name (the test replaces SOLUTION with a path:
// "solution.cpp" beside the exercise, an absolute path to the lesson's, or to a copy).
#define summa_forward summa_forward_of_the_library
#include "SOLUTION"
#undef summa_forward
#include "lesson.hpp"

namespace tplab::lessons::summa {

Tensor summa_forward(Device& device, Grid2D& grid, const Tensor& x, const Tensor& w) {
  return summa_forward_of_the_library(device, grid, x, w);
}

}  // namespace tplab::lessons::summa
