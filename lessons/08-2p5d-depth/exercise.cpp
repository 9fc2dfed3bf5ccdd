// Lesson 08 exercise: the grid of 2.5D and the depth all-reduce of the gradients. Fill in the
// TODO blocks, then run ./tplab lesson check 8. README.md explains; ./tplab lesson hint 8 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::tesseract {

Grid2p5D build_tesseract_grid(Comm& world, int d) {
  // TODO: q = sqrt(p / d). Rank r = j + q*i + q^2*k: find k (the depth layer), i (the row of
  //       the layer's mesh) and j (its column). Fill a Grid2p5D: d, k, the layer's mesh
  //       (Grid2D::build_layer) and the depth group: world.split(color, key, "depth"), where
  //       ranks with the same (i, j) share a color and the key orders them by k.
  (void)world;
  (void)d;
  TPLAB_TODO();
}

void all_reduce_over_depth(Comm& depth, TensorMap& gradients) {
  // TODO: every gradient shard [in/q, out/q] (or [out/q]) covers this layer's m/d tokens only.
  //       Sum each one over the depth group, in place.
  (void)depth;
  (void)gradients;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::tesseract
