// The portable kernels of bench peak: SSE2, which every x86-64 has, with a multiply and an add
// (SSE2 has no fused multiply-add), 2 flops all the same. This file is compiled with -mno-avx
// whatever the build's -march (bench/CMakeLists.txt), so that a native build cannot widen it.
#include <immintrin.h>

#include "fma_peak_kernels.hpp"

namespace tplab::bench::peak_kernels {

double sse2_f64(std::int64_t iterations) {
  __m128d acc[kSse2Chains];
  for (int c = 0; c < kSse2Chains; ++c) acc[c] = _mm_set1_pd(start(c));
  const __m128d a = _mm_set1_pd(kA), b = _mm_set1_pd(kB);
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (auto& x : acc) x = _mm_add_pd(_mm_mul_pd(x, a), b);
  }
  __m128d sum = acc[0];
  for (int c = 1; c < kSse2Chains; ++c) sum = _mm_add_pd(sum, acc[c]);
  alignas(16) double lanes[2];
  _mm_store_pd(lanes, sum);
  return lanes[0] + lanes[1];
}

double sse2_f32(std::int64_t iterations) {
  __m128 acc[kSse2Chains];
  for (int c = 0; c < kSse2Chains; ++c) acc[c] = _mm_set1_ps(static_cast<float>(start(c)));
  const __m128 a = _mm_set1_ps(static_cast<float>(kA)), b = _mm_set1_ps(static_cast<float>(kB));
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (auto& x : acc) x = _mm_add_ps(_mm_mul_ps(x, a), b);
  }
  __m128 sum = acc[0];
  for (int c = 1; c < kSse2Chains; ++c) sum = _mm_add_ps(sum, acc[c]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, sum);
  return static_cast<double>(lanes[0]) + lanes[1] + lanes[2] + lanes[3];
}

}  // namespace tplab::bench::peak_kernels
