/// @file
/// Grid3D: the q x q x q cube of 3D tensor parallelism and its five groups.
///
/// World rank r sits at coordinates (i, j, k) with r = i + q*(j + q*k) (Bian et al. 2021;
/// the 3D matrix multiply of Agarwal et al. 1995). The groups, as Comm::split names them:
///
///   "input"          q ranks that differ in i only (same j, k), ordered by i
///   "weight"         q ranks that differ in j only (same i, k), ordered by j
///   "output"         q ranks that differ in k only (same i, j), ordered by k
///   "input_weight"   q^2 ranks that share k, ordered by j*q + i
///   "output_weight"  q^2 ranks that share i, ordered by j*q + k
///
/// The axes are named for the part they play in the linears that read the block's layout
/// (Q, K, V and fc1): X is all-gathered over "input", W over "weight", and Y reduce-scattered
/// over "output". The other two linears swap input and output (see LinearRoles). The order
/// inside each group is the order of the row blocks its gathers and scatters join or cut.
#pragma once

#include <memory>

#include "comm/comm.hpp"

namespace tplab {

/// The three axes of the cube, named for their part in the linears that read the block's layout.
enum class Axis3D { input, weight, output };

/// A rank's place in the cube.
struct CubeCoordinates {
  int i = 0;                                                ///< position along the input axis
  int j = 0;                                                ///< position along the weight axis
  int k = 0;                                                ///< position along the output axis
  bool operator==(const CubeCoordinates&) const = default;  ///< the same place
};

/// q when world_size is q^3, otherwise 0.
int cube_side(int world_size);

/// The coordinates of world rank `rank` in a cube of side q: rank = i + q*(j + q*k).
CubeCoordinates cube_coordinates(int rank, int q);

/// The cube and its groups, as one rank sees them.
struct Grid3D {
  int q = 1;                            ///< side of the cube
  CubeCoordinates coordinates;          ///< this rank's (i, j, k)
  std::unique_ptr<Comm> input;          ///< the q ranks that differ only in i
  std::unique_ptr<Comm> weight;         ///< the q ranks that differ only in j
  std::unique_ptr<Comm> output;         ///< the q ranks that differ only in k
  std::unique_ptr<Comm> input_weight;   ///< q^2 ranks with this rank's k
  std::unique_ptr<Comm> output_weight;  ///< q^2 ranks with this rank's i

  /// Splits `world` (q^3 ranks) into the five groups. Collective over `world`.
  static Grid3D build(Comm& world);

  /// The group along the axis `which`.
  Comm& axis(Axis3D which) const;
  /// The q^2 group spanned by the axis `which` and the weight axis: input_weight or output_weight.
  Comm& plane_with_weight(Axis3D which) const;
};

}  // namespace tplab
