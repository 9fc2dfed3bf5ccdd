// Lesson 08, the answer: the 2.5D grid built from the world's rank numbers with two splits,
// and the depth all-reduce of every gradient.
#include "lesson.hpp"

namespace tplab::lessons::tesseract {

// The library's version: parallel/grid/grid_2p5d.cpp, Grid2p5D::build, which also refuses a
// world size that is not d q^2.
Grid2p5D build_tesseract_grid(Comm& world, int d) {
  const int q = square_root(world.size() / d);
  const int r = world.rank();  // r = j + q*i + q^2*k
  const int k = r / (q * q);
  const int i = (r % (q * q)) / q;
  const int j = r % q;
  Grid2p5D grid;
  grid.d = d;
  grid.k = k;
  grid.layer = Grid2D::build_layer(world, q, i, j, k);  // the q x q mesh of depth layer k
  // The d ranks with this (i, j), one per layer, ordered by k.
  grid.depth = world.split(i * q + j, k, "depth");
  return grid;
}

// The library's version: parallel/tp2p5d/scheme_2p5d.cpp, Module2p5D::backward, which can
// also start every sum and wait for them together.
void all_reduce_over_depth(Comm& depth, TensorMap& gradients) {
  // A Tensor shares its storage, so the module's own gradient tensors are summed.
  for (auto& [name, grad] : gradients) depth.all_reduce(grad);
}

}  // namespace tplab::lessons::tesseract
