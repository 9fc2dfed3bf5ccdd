/// @file
/// The kernels of bench peak (fma_peak.cpp) and what they share. Each runs independent
/// accumulators x = x a + b (a multiply-add's latency is 4 cycles and a core issues 2 a cycle,
/// so at least 8 must be in flight) for `iterations` rounds and returns their sum, so that no
/// compiler can drop the work.
#pragma once

#include <cstdint>

namespace tplab::bench::peak_kernels {

/// a of x = x a + b, which converges to b / (1 - a) = 1 and never leaves the normal range.
inline constexpr double kA = 0.999999;
/// b of x = x a + b.
inline constexpr double kB = 0.000001;

/// Chain c's first value: each chain its own, so that no compiler can compute one for all.
constexpr double start(int c) {
  return 0.5 + 0.01 * c;
}

/// Accumulators of the portable kernels (of 16 SSE registers).
inline constexpr int kSse2Chains = 12;

/// The portable kernels (fma_peak_portable.cpp, compiled without AVX): SSE2 multiply then add,
/// 2 x lanes x kSse2Chains flops a round.
double sse2_f64(std::int64_t iterations);
double sse2_f32(std::int64_t iterations);  ///< the same in f32

}  // namespace tplab::bench::peak_kernels
