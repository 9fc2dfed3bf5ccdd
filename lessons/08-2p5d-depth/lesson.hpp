/// @file
/// Lesson 08: 2.5D (Tesseract) and the depth all-reduce. The functions the exercise fills in.
#pragma once

#include "comm/comm.hpp"
#include "grid/grid_2p5d.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab::lessons::tesseract {

/// The grid of `world` with p = d q^2 ranks: rank r = j + q*i + q^2*k sits in depth layer k at
/// row i and column j of that layer's q x q mesh. The mesh's groups "row" and "column", and
/// the group "depth" of the d ranks (i, j, 0..d-1), are split from `world`. Collective.
Grid2p5D build_tesseract_grid(Comm& world, int d);

/// Sums every gradient shard over the depth group, in place, in name order on every rank:
/// each depth layer saw its own tokens, but all layers hold the same weight blocks.
void all_reduce_over_depth(Comm& depth, TensorMap& gradients);

}  // namespace tplab::lessons::tesseract
