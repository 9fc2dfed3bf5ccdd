// Lesson 08, the library's answer: Grid2p5D::build, and the loop of Scheme2p5D's module that
// sums every gradient over the depth group after the 2D block's backward.
#include "lesson.hpp"

namespace tplab::lessons::tesseract {

Grid2p5D build_tesseract_grid(Comm& world, int d) {
  return Grid2p5D::build(world, d);
}

void all_reduce_over_depth(Comm& depth, TensorMap& gradients) {
  // A Tensor shares its storage, so the module's own gradient tensors are summed.
  for (auto& [name, grad] : gradients) depth.all_reduce(grad);
}

}  // namespace tplab::lessons::tesseract
