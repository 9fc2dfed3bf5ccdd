/// @file
/// Placement: which block of every global tensor each rank holds, as data.
///
/// One description serves sharding the inputs, checking results against the reference,
/// printing shard shapes in lessons and drawing partitions in notebooks. Every tensor is seen
/// as a matrix [rows, cols] (a vector [n] as [1, n]); a rank holds one contiguous block of it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace tplab {

/// Rows [row0, row0 + rows) and columns [col0, col0 + cols) of a global matrix.
struct BlockRange {
  std::int64_t row0 = 0;                               ///< first row
  std::int64_t rows = 0;                               ///< number of rows
  std::int64_t col0 = 0;                               ///< first column
  std::int64_t cols = 0;                               ///< number of columns
  bool operator==(const BlockRange&) const = default;  ///< the same block
};

/// Where one tensor lives on every rank of the world.
struct TensorPlacement {
  std::string tensor;              ///< "x", "wq", "d_wq", ...
  Extents global;                  ///< its global extents
  std::string rule;                ///< human-readable, e.g. "Shard(1) over tp" or "Replicate"
  std::vector<BlockRange> blocks;  ///< blocks[world_rank]

  /// The extents of the shard held by `rank` (a vector stays 1-D).
  Extents local_extents(int rank) const;
};

/// The whole global tensor on every rank.
TensorPlacement replicated(std::string tensor, Extents global, int world_size);

/// The global matrix cut into row_parts x col_parts equal blocks; `which(rank)` returns the
/// (row block, column block) that rank holds.
TensorPlacement blocked(std::string tensor, Extents global, std::string rule, int world_size,
                        std::int64_t row_parts, std::int64_t col_parts,
                        const std::function<std::pair<std::int64_t, std::int64_t>(int)>& which);

/// The placement named `tensor`; throws InternalError when absent.
const TensorPlacement& find_placement(const std::vector<TensorPlacement>& placements,
                                      std::string_view tensor);

}  // namespace tplab
