/// @file
/// Where an element or a block of a global tensor lives, in words a learner can follow back to
/// the placement: "Y[3, 17] (block rows 0..7, cols 16..31, held by rank 1)".
///
/// Every tensor is a matrix [rows, cols] to a placement (a vector [n] is [1, n]); index ranges
/// are inclusive, as the shard tables of the READMEs write them.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scheme/placement.hpp"

namespace tplab::lessons {

/// "a..b" for the `count` indices from `first`; "a" for one index.
inline std::string index_range(std::int64_t first, std::int64_t count) {
  if (count == 1) return fmt::format("{}", first);
  return fmt::format("{}..{}", first, first + count - 1);
}

/// The block as index ranges: "rows 0..15, cols 16..31" (a vector: "elements 16..31").
inline std::string block_ranges(const BlockRange& block, const Extents& global) {
  if (global.size() == 1) return "elements " + index_range(block.col0, block.cols);
  return fmt::format("rows {}, cols {}", index_range(block.row0, block.rows),
                     index_range(block.col0, block.cols));
}

/// The ranks that hold exactly `block` of `placement`, in order.
inline std::vector<int> block_holders(const TensorPlacement& placement, const BlockRange& block) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < placement.blocks.size(); ++r) {
    if (placement.blocks[r] == block) ranks.push_back(static_cast<int>(r));
  }
  return ranks;
}

/// "rank 1", "ranks 1, 3", "ranks 0..3" (a run of consecutive ranks); "every rank" when the
/// list holds all `world_size` ranks.
inline std::string rank_list(const std::vector<int>& ranks, int world_size) {
  if (static_cast<int>(ranks.size()) == world_size && world_size > 1) return "every rank";
  if (ranks.size() == 1) return fmt::format("rank {}", ranks[0]);
  bool consecutive = ranks.size() > 2;
  for (std::size_t i = 1; i < ranks.size(); ++i) consecutive &= ranks[i] == ranks[i - 1] + 1;
  if (consecutive) return fmt::format("ranks {}..{}", ranks.front(), ranks.back());
  return fmt::format("ranks {}", fmt::join(ranks, ", "));
}

/// Where the element at global row-major `index` of the tensor `name` lies: its row and column
/// in the global tensor, the block of the placement that holds it and the ranks that hold that
/// block: "Y[3, 17] (block rows 0..7, cols 16..31, held by rank 1)", "b1[17] (block elements
/// 16..31, held by ranks 1, 3)", "S[5] (every rank holds all of S)".
inline std::string element_location(const std::string& name, const TensorPlacement& placement,
                                    std::int64_t index) {
  const bool vector = placement.global.size() == 1;
  const std::int64_t cols = vector ? placement.global.at(0) : placement.global.at(1);
  const std::int64_t row = index / cols, col = index % cols;
  const std::string element =
      vector ? fmt::format("{}[{}]", name, col) : fmt::format("{}[{}, {}]", name, row, col);
  for (const BlockRange& b : placement.blocks) {
    if (row < b.row0 || row >= b.row0 + b.rows || col < b.col0 || col >= b.col0 + b.cols) {
      continue;
    }
    const std::vector<int> holders = block_holders(placement, b);
    const bool whole = (vector || b.rows == placement.global.at(0)) && b.cols == cols;
    if (whole && holders.size() == placement.blocks.size()) {
      return fmt::format("{} (every rank holds all of {})", element, name);
    }
    return fmt::format("{} (block {}, held by {})", element, block_ranges(b, placement.global),
                       rank_list(holders, static_cast<int>(placement.blocks.size())));
  }
  return element;  // an index outside every block: the placement does not cover it
}

}  // namespace tplab::lessons
