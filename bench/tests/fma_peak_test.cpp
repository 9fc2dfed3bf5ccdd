// bench peak's kernels: every instruction path this CPU runs gives a positive, finite rate in
// f64 and f32 (the portable one on every machine, the AVX2 and AVX-512 ones where the CPU has
// them, each said when it is skipped), and what it cannot run is refused by name.
#include "fma_peak.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace tplab::bench {
namespace {

bool runs(const std::string& path) {
  const std::vector<std::string> paths = peak_paths();
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

void expect_rate(const std::string& path) {
  if (!runs(path)) GTEST_SKIP() << "this CPU has no " << path << "; its kernel is not run here";
  for (DType dtype : {DType::f64, DType::f32}) {
    const CorePeak p = measure_core_peak(dtype, path, 0.01, 3);
    EXPECT_EQ(p.path, path);
    EXPECT_EQ(p.dtype, dtype);
    EXPECT_TRUE(std::isfinite(p.flops_per_second)) << path;
    // Above 10 MFLOP/s and below 1 TFLOP/s on one core: a rate, not a miscount.
    EXPECT_GT(p.flops_per_second, 1e7) << path;
    EXPECT_LT(p.flops_per_second, 1e12) << path;
  }
}

TEST(FmaPeak, PortablePathRunsEverywhere) {
  EXPECT_EQ(peak_paths().back(), "portable");
  expect_rate("portable");
}

TEST(FmaPeak, Avx2FmaPath) {
  expect_rate("avx2+fma");
}

TEST(FmaPeak, Avx512Path) {
  expect_rate("avx512f");
}

TEST(FmaPeak, FastestIsTheBestOfThePaths) {
  const CorePeak best = fastest_core_peak(DType::f32, 0.01, 3);
  EXPECT_TRUE(runs(best.path)) << best.path;
  EXPECT_GT(best.flops_per_second, 0);
}

TEST(FmaPeak, RefusesWhatItCannotMeasure) {
  EXPECT_THROW(measure_core_peak(DType::f64, "neon", 0.01, 1), UsageError);
  EXPECT_THROW(measure_core_peak(DType::bf16, "portable", 0.01, 1), UsageError);
  EXPECT_THROW(measure_core_peak(DType::f64, "portable", 0, 1), UsageError);
  EXPECT_THROW(measure_core_peak(DType::f64, "portable", 0.01, 0), UsageError);
  for (const std::string path : {"avx512f", "avx2+fma"}) {
    if (!runs(path)) {
      EXPECT_THROW(measure_core_peak(DType::f64, path, 0.01, 1), UsageError);
    }
  }
}

}  // namespace
}  // namespace tplab::bench
