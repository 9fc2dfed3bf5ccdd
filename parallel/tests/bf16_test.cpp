// bfloat16 rounding on the host: to nearest, ties to even, from f32 and from f64 without
// double rounding.
#include "core/bf16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace tplab {
namespace {

float round_trip(float v) {
  return float_from_bf16(bf16_from_float(v));
}
double round_trip(double v) {
  return float_from_bf16(bf16_from_double(v));
}

TEST(Bf16, KeepsValuesItCanHold) {
  for (float v : {0.0f, -0.0f, 1.0f, -2.5f, 0.0078125f, 256.0f, -0x1.fep127f}) {
    EXPECT_EQ(round_trip(v), v);
  }
  EXPECT_EQ(round_trip(1.0f + 0x1p-7f), 1.0f + 0x1p-7f);  // 8 significant bits
  EXPECT_TRUE(std::isinf(round_trip(std::numeric_limits<float>::infinity())));
  EXPECT_TRUE(std::isnan(round_trip(std::numeric_limits<float>::quiet_NaN())));
}

TEST(Bf16, RoundsToNearestTiesToEven) {
  EXPECT_EQ(round_trip(1.0f + 0x1p-8f), 1.0f);                // halfway: down to the even 1.0
  EXPECT_EQ(round_trip(1.0f + 3 * 0x1p-8f), 1.0f + 0x1p-6f);  // halfway: up to the even one
  EXPECT_EQ(round_trip(1.0f + 0x1p-8f + 0x1p-20f), 1.0f + 0x1p-7f);  // above halfway
  EXPECT_EQ(round_trip(-(1.0f + 0x1p-8f + 0x1p-20f)), -(1.0f + 0x1p-7f));
  EXPECT_TRUE(std::isinf(round_trip(std::numeric_limits<float>::max())));  // beyond bf16's max
}

TEST(Bf16, RoundsDoublesOnceNotTwice) {
  // 1 + 2^-8 + 2^-40 rounds to f32 as exactly 1 + 2^-8, a bf16 halfway point; the f64 value is
  // above it, so the nearest bf16 is 1 + 2^-7, not the even 1.0.
  EXPECT_EQ(round_trip(1.0 + 0x1p-8 + 0x1p-40), 1.0 + 0x1p-7);
  EXPECT_EQ(round_trip(-(1.0 + 0x1p-8 + 0x1p-40)), -(1.0 + 0x1p-7));
  EXPECT_EQ(round_trip(1.0 + 0x1p-8 - 0x1p-40), 1.0);  // below halfway
  EXPECT_EQ(round_trip(1.0 + 0x1p-8), 1.0);            // exactly halfway: to even
  EXPECT_EQ(round_trip(0.1), static_cast<double>(round_trip(0.1f)));
}

}  // namespace
}  // namespace tplab
