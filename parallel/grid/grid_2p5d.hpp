/// @file
/// Grid2p5D: d depth layers of q x q meshes (Tesseract).
#pragma once

#include <memory>

#include "grid/grid_2d.hpp"

namespace tplab {

/// Rank (i, j, k) = j + q*i + q^2*k: depth layer k is a q x q mesh (Grid2D) of its own, and
/// the depth group "depth" joins the d ranks (i, j, 0..d-1) that hold the same weight blocks.
struct Grid2p5D {
  int d = 1;                    ///< number of depth layers
  int k = 0;                    ///< depth layer: which group of q token blocks
  Grid2D layer;                 ///< this rank's q x q mesh
  std::unique_ptr<Comm> depth;  ///< the d ranks (i, j, 0..d-1)

  /// The grid of `world` with p = depth * q^2 ranks. Collective over `world`.
  static Grid2p5D build(Comm& world, int depth);
};

}  // namespace tplab
