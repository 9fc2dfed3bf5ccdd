#include "grid/grid_2p5d.hpp"

#include "core/error.hpp"

namespace tplab {

Grid2p5D Grid2p5D::build(Comm& world, int depth) {
  check(depth >= 1 && world.size() % depth == 0, "Grid2p5D: depth must divide the world size");
  const int q = square_root(world.size() / depth);
  check(q > 0, "Grid2p5D needs depth * q^2 ranks");
  const int r = world.rank();
  const int k = r / (q * q);
  const int i = (r % (q * q)) / q;
  const int j = r % q;
  Grid2p5D g;
  g.d = depth;
  g.k = k;
  g.layer = Grid2D::build_layer(world, q, i, j, k);
  g.depth = world.split(i * q + j, k, "depth");
  return g;
}

}  // namespace tplab
