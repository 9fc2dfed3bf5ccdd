// Philox 4x32-10 (Salmon et al., SC 2011) written out for the reference: ten rounds, each
// multiplying words 0 and 2 by two constants and mixing the 64-bit products' halves with words
// 1 and 3 and the key, the key bumped by two Weyl constants between rounds.
#include "dropout.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace tplab::reference::detail {
namespace {

using Words = std::array<std::uint32_t, 4>;

Words philox(Words counter, std::array<std::uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t a = std::uint64_t{0xD2511F53u} * counter[0];
    const std::uint64_t b = std::uint64_t{0xCD9E8D57u} * counter[2];
    counter = {static_cast<std::uint32_t>(b >> 32) ^ counter[1] ^ key[0],
               static_cast<std::uint32_t>(b),
               static_cast<std::uint32_t>(a >> 32) ^ counter[3] ^ key[1],
               static_cast<std::uint32_t>(a)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return counter;
}

}  // namespace

bool dropout_keeps(const Dropout& dropout, Site site, std::int64_t e) {
  const auto block = static_cast<std::uint64_t>(e) / 4;
  const Words bits = philox({static_cast<std::uint32_t>(block & 0xFFFFFFFFu),
                             static_cast<std::uint32_t>(block >> 32), dropout.step,
                             dropout.layer * 4 + static_cast<std::uint32_t>(site)},
                            {static_cast<std::uint32_t>(dropout.seed & 0xFFFFFFFFu),
                             static_cast<std::uint32_t>(dropout.seed >> 32)});
  const double threshold = std::min(std::round(dropout.p * 4294967296.0), 4294967295.0);
  return static_cast<double>(bits[static_cast<std::size_t>(e % 4)]) >= threshold;
}

template <typename T>
void apply_dropout(const Dropout& dropout, Site site, std::int64_t first, Matrix<T>& x) {
  if (dropout.p == 0) return;
  const T scale = static_cast<T>(1.0 / (1.0 - dropout.p));
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      x(r, c) *= dropout_keeps(dropout, site, first + r * x.cols() + c) ? scale : T(0);
    }
  }
}

template void apply_dropout(const Dropout&, Site, std::int64_t, Matrix<float>&);
template void apply_dropout(const Dropout&, Site, std::int64_t, Matrix<double>&);

}  // namespace tplab::reference::detail
