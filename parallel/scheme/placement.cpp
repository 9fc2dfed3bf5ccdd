#include "scheme/placement.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab {
namespace {

std::pair<std::int64_t, std::int64_t> as_matrix(const Extents& global) {
  if (global.size() == 1) return {1, global[0]};
  check(global.size() == 2, "placements describe matrices and vectors");
  return {global[0], global[1]};
}

}  // namespace

Extents TensorPlacement::local_extents(int rank) const {
  const BlockRange& b = blocks.at(static_cast<std::size_t>(rank));
  if (global.size() == 1) return {b.cols};
  return {b.rows, b.cols};
}

TensorPlacement replicated(std::string tensor, Extents global, int world_size) {
  const auto [rows, cols] = as_matrix(global);
  return TensorPlacement{
      std::move(tensor), std::move(global), "Replicate",
      std::vector<BlockRange>(static_cast<std::size_t>(world_size), BlockRange{0, rows, 0, cols})};
}

TensorPlacement blocked(std::string tensor, Extents global, std::string rule, int world_size,
                        std::int64_t row_parts, std::int64_t col_parts,
                        const std::function<std::pair<std::int64_t, std::int64_t>(int)>& which) {
  const auto [rows, cols] = as_matrix(global);
  check(rows % row_parts == 0 && cols % col_parts == 0,
        fmt::format("{} {} does not split into {} x {} blocks", tensor, to_string(global),
                    row_parts, col_parts));
  const std::int64_t block_rows = rows / row_parts;
  const std::int64_t block_cols = cols / col_parts;
  TensorPlacement p{std::move(tensor), std::move(global), std::move(rule), {}};
  for (int r = 0; r < world_size; ++r) {
    const auto [i, j] = which(r);
    check(i >= 0 && i < row_parts && j >= 0 && j < col_parts, "block index out of range");
    p.blocks.push_back({i * block_rows, block_rows, j * block_cols, block_cols});
  }
  return p;
}

const TensorPlacement& find_placement(const std::vector<TensorPlacement>& placements,
                                      std::string_view tensor) {
  for (const auto& p : placements) {
    if (p.tensor == tensor) return p;
  }
  throw InternalError(fmt::format("no placement for '{}'", tensor));
}

}  // namespace tplab
