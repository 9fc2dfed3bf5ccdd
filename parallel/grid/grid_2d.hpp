/// @file
/// Grid2D: a q x q mesh of ranks with row and column groups (Optimus, SUMMA).
#pragma once

#include <memory>

#include "comm/comm.hpp"

namespace tplab {

/// Rank (i, j) of a q x q mesh: i is its row, j its column.
///   row group "row":       the q ranks (i, 0..q-1), ordered by j
///   column group "column": the q ranks (0..q-1, j), ordered by i
/// Within a row, a token block is spread over the feature blocks; within a column, a feature
/// block is spread over the token blocks.
struct Grid2D {
  int q = 1;  ///< side of the mesh
  int i = 0;  ///< row: which block of tokens (and of a weight's input features)
  int j = 0;  ///< column: which block of features (and of a weight's output features)
  std::unique_ptr<Comm> row;     ///< the q ranks of row i
  std::unique_ptr<Comm> column;  ///< the q ranks of column j

  /// The mesh of `world` (p = q^2 ranks, rank = i*q + j). Collective over `world`.
  static Grid2D build(Comm& world);
  /// The mesh of depth layer `layer` of a larger world: the ranks with that `layer` value form
  /// it, and (i, j) are given by the caller. Collective over `world`.
  static Grid2D build_layer(Comm& world, int q, int i, int j, int layer);
};

/// q with q * q == p, or 0 when p is not a square.
int square_root(int p);

}  // namespace tplab
