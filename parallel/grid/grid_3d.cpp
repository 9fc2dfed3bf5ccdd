/// @file
/// Grid3D: the cube's coordinates and the five groups split from the world.
#include "grid/grid_3d.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab {

int cube_side(int world_size) {
  for (int q = 1; q * q * q <= world_size; ++q) {
    if (q * q * q == world_size) return q;
  }
  return 0;
}

CubeCoordinates cube_coordinates(int rank, int q) {
  return {rank % q, (rank / q) % q, rank / (q * q)};
}

Grid3D Grid3D::build(Comm& world) {
  const int q = cube_side(world.size());
  check(q > 0, fmt::format("Grid3D needs a cube number of ranks; got {}", world.size()));
  const auto [i, j, k] = cube_coordinates(world.rank(), q);
  Grid3D grid;
  grid.q = q;
  grid.coordinates = {i, j, k};
  // A group is the set of ranks that agree on the color; the key orders them inside it.
  grid.input = world.split(j + q * k, i, "input");
  grid.weight = world.split(i + q * k, j, "weight");
  grid.output = world.split(i + q * j, k, "output");
  grid.input_weight = world.split(k, j * q + i, "input_weight");
  grid.output_weight = world.split(i, j * q + k, "output_weight");
  return grid;
}

Comm& Grid3D::axis(Axis3D which) const {
  switch (which) {
    case Axis3D::input:
      return *input;
    case Axis3D::weight:
      return *weight;
    case Axis3D::output:
      return *output;
  }
  throw InternalError("unknown 3D axis");
}

Comm& Grid3D::plane_with_weight(Axis3D which) const {
  switch (which) {
    case Axis3D::input:
      return *input_weight;
    case Axis3D::output:
      return *output_weight;
    case Axis3D::weight:
      break;
  }
  throw InternalError("the weight axis spans no plane with itself");
}

}  // namespace tplab
