#include "grid/grid_2d.hpp"

#include "core/error.hpp"

namespace tplab {

int square_root(int p) {
  for (int q = 1; q * q <= p; ++q) {
    if (q * q == p) return q;
  }
  return 0;
}

Grid2D Grid2D::build(Comm& world) {
  const int q = square_root(world.size());
  check(q > 0, "Grid2D needs a square number of ranks");
  return build_layer(world, q, world.rank() / q, world.rank() % q, 0);
}

Grid2D Grid2D::build_layer(Comm& world, int q, int i, int j, int layer) {
  Grid2D g;
  g.q = q;
  g.i = i;
  g.j = j;
  // Colors are unique per split: layer * q + row index, and layer * q + column index.
  g.row = world.split(layer * q + i, j, "row");
  g.column = world.split(layer * q + j, i, "column");
  return g;
}

}  // namespace tplab
