/// @file
/// Where an element or a block of a global tensor lives, in words a learner can follow back to
/// the placement: "Y[3, 17] (block rows 0..7, cols 16..31, held by rank 1)".
///
/// Every tensor is a matrix [rows, cols] to a placement (a vector [n] is [1, n]); index ranges
/// are inclusive, as the shard tables of the READMEs write them.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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

/// Which ranks hold a shard of one tensor that agrees with the reference, each shard checked
/// on its own against its block of the reference, in rank order.
struct RankSplit {
  std::vector<int> wrong;  ///< the ranks whose own shard is wrong
  std::vector<int> right;  ///< the others
};

/// The block as its place in the grid of blocks: "(1, 2)" for the block of rows 1 x rows..,
/// cols 2 x cols.. when every block of the placement has the same extents ("(2)" for a
/// vector); else its index ranges, "rows 0..15, cols 16..31".
inline std::string block_coordinates(const TensorPlacement& placement, const BlockRange& block) {
  const bool regular =
      block.rows > 0 && block.cols > 0 &&
      std::all_of(placement.blocks.begin(), placement.blocks.end(), [&](const BlockRange& b) {
        return b.rows == block.rows && b.cols == block.cols;
      });
  if (!regular) return block_ranges(block, placement.global);
  if (placement.global.size() == 1) return fmt::format("({})", block.col0 / block.cols);
  return fmt::format("({}, {})", block.row0 / block.rows, block.col0 / block.cols);
}

/// "Y: wrong on ranks 1, 3 (blocks (0, 1), (1, 1)); right on ranks 0, 2": which ranks' shards
/// of the tensor `name` are wrong, with the blocks they hold (left out when every rank holds
/// the whole tensor), and which are right. Empty when no rank's shard is wrong.
inline std::string describe_rank_split(const std::string& name, const TensorPlacement& placement,
                                       const RankSplit& split) {
  if (split.wrong.empty()) return {};
  const int world_size = static_cast<int>(placement.blocks.size());
  std::vector<std::string> blocks;
  for (int r : split.wrong) {
    const std::string block =
        block_coordinates(placement, placement.blocks.at(static_cast<std::size_t>(r)));
    if (std::find(blocks.begin(), blocks.end(), block) == blocks.end()) blocks.push_back(block);
  }
  const bool whole =
      block_holders(placement, placement.blocks.at(0)).size() == placement.blocks.size();
  std::string text = fmt::format("{}: wrong on {}", name, rank_list(split.wrong, world_size));
  if (!whole) {
    text += fmt::format(" ({} {})", blocks.size() == 1 ? "block" : "blocks",
                        fmt::join(blocks, blocks.front().starts_with("(") ? ", " : "; "));
  }
  if (!split.right.empty()) text += "; right on " + rank_list(split.right, world_size);
  return text;
}

}  // namespace tplab::lessons
