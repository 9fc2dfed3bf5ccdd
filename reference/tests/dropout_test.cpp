// The reference's masks read Philox 4x32-10's words: at seed 0, step 0, layer 0 and site 0,
// elements 0-3 draw counter 0 under key 0, whose words are the generator's first known answer
// (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8).
#include <gtest/gtest.h>

#include <cstdint>

#include "../src/dropout.hpp"

namespace tplab::reference::detail {
namespace {

TEST(ReferenceDropout, ReadsPhiloxKnownAnswer) {
  const double two32 = 4294967296.0;
  const auto keeps = [&](std::uint32_t threshold, std::int64_t e) {
    return dropout_keeps(Dropout{threshold / two32, 0, 0, 0}, Site::probs, e);
  };
  // Each word is kept at a threshold equal to it and dropped one above it.
  const std::uint32_t words[] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
  for (std::int64_t e = 0; e < 4; ++e) {
    EXPECT_TRUE(keeps(words[e], e)) << e;
    EXPECT_FALSE(keeps(words[e] + 1, e)) << e;
  }
}

}  // namespace
}  // namespace tplab::reference::detail
