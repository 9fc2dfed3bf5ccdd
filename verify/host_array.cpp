#include "host_array.hpp"

#include "core/error.hpp"

namespace tplab::verify {

std::vector<double> HostArray::block(const BlockRange& range) const {
  const std::int64_t cols = extents.back();
  check(range.col0 + range.cols <= cols &&
            (range.row0 + range.rows) * cols <= static_cast<std::int64_t>(values.size()),
        "block outside its array");
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(range.rows * range.cols));
  for (std::int64_t r = range.row0; r < range.row0 + range.rows; ++r) {
    const auto first = values.begin() + r * cols + range.col0;
    out.insert(out.end(), first, first + range.cols);
  }
  return out;
}

}  // namespace tplab::verify
