#include "device/dropout_mask.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tplab {

DropoutMask make_dropout_mask(const DropoutOptions& options, DropoutDraw draw, DropoutSite site,
                              std::int64_t rows_global, std::int64_t row0, std::int64_t cols_global,
                              std::int64_t col0) {
  check(options.p >= 0 && options.p < 1,
        fmt::format("dropout probability {} outside [0, 1)", options.p));
  DropoutMask mask;
  mask.key0 = static_cast<std::uint32_t>(options.seed);
  mask.key1 = static_cast<std::uint32_t>(options.seed >> 32);
  mask.step = draw.step;
  mask.stream = 4 * draw.layer + static_cast<std::uint32_t>(site);
  // p < 1, so only a p within 2^-33 of 1 rounds up to 2^32: it drops every element anyway.
  mask.threshold = static_cast<std::uint32_t>(
      std::min<long long>(std::llround(std::ldexp(options.p, 32)), 0xFFFFFFFFll));
  mask.scale = 1.0 / (1.0 - options.p);
  mask.rows_global = rows_global;
  mask.row0 = row0;
  mask.cols_global = cols_global;
  mask.col0 = col0;
  return mask;
}

}  // namespace tplab
