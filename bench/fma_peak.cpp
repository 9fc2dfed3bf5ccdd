#include "fma_peak.hpp"

#include <fmt/format.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "core/error.hpp"
#include "fma_peak_kernels.hpp"

namespace tplab::bench {
namespace {

using peak_kernels::kA;
using peak_kernels::kB;
using peak_kernels::start;

// The fast kernels, each compiled for its instruction set (and run only where the CPU has it):
// 2 x lanes x chains flops a round.
constexpr int kAvx512Chains = 16;  // of 32 registers
constexpr int kAvx2Chains = 12;    // of 16 registers

[[gnu::target("avx512f")]] double avx512_f64(std::int64_t iterations) {
  __m512d acc[kAvx512Chains];
  for (int c = 0; c < kAvx512Chains; ++c) acc[c] = _mm512_set1_pd(start(c));
  const __m512d a = _mm512_set1_pd(kA), b = _mm512_set1_pd(kB);
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (auto& x : acc) x = _mm512_fmadd_pd(x, a, b);
  }
  __m512d sum = acc[0];
  for (int c = 1; c < kAvx512Chains; ++c) sum = _mm512_add_pd(sum, acc[c]);
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, sum);
  double total = 0;
  for (double v : lanes) total += v;
  return total;
}

[[gnu::target("avx512f")]] double avx512_f32(std::int64_t iterations) {
  __m512 acc[kAvx512Chains];
  for (int c = 0; c < kAvx512Chains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(start(c)));
  const __m512 a = _mm512_set1_ps(static_cast<float>(kA)),
               b = _mm512_set1_ps(static_cast<float>(kB));
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (auto& x : acc) x = _mm512_fmadd_ps(x, a, b);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kAvx512Chains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  double total = 0;
  for (float v : lanes) total += v;
  return total;
}

[[gnu::target("avx2,fma")]] double avx2_f64(std::int64_t iterations) {
  __m256d acc[kAvx2Chains];
  for (int c = 0; c < kAvx2Chains; ++c) acc[c] = _mm256_set1_pd(start(c));
  const __m256d a = _mm256_set1_pd(kA), b = _mm256_set1_pd(kB);
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (auto& x : acc) x = _mm256_fmadd_pd(x, a, b);
  }
  __m256d sum = acc[0];
  for (int c = 1; c < kAvx2Chains; ++c) sum = _mm256_add_pd(sum, acc[c]);
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

[[gnu::target("avx2,fma")]] double avx2_f32(std::int64_t iterations) {
  __m256 acc[kAvx2Chains];
  for (int c = 0; c < kAvx2Chains; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(start(c)));
  const __m256 a = _mm256_set1_ps(static_cast<float>(kA)),
               b = _mm256_set1_ps(static_cast<float>(kB));
  for (std::int64_t i = 0; i < iterations; ++i) {
    for (auto& x : acc) x = _mm256_fmadd_ps(x, a, b);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kAvx2Chains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  double total = 0;
  for (float v : lanes) total += v;
  return total;
}

struct Kernel {
  double (*run)(std::int64_t iterations);
  double flops_per_iteration;
};

Kernel kernel_of(DType dtype, const std::string& path) {
  const bool f64 = dtype == DType::f64;
  if (dtype == DType::bf16)
    throw UsageError("bench peak measures f64 and f32 (bf16 has no CPU path)");
  if (path == "avx512f") {
    return {f64 ? avx512_f64 : avx512_f32, 2.0 * (f64 ? 8 : 16) * kAvx512Chains};
  }
  if (path == "avx2+fma") return {f64 ? avx2_f64 : avx2_f32, 2.0 * (f64 ? 4 : 8) * kAvx2Chains};
  if (path == "portable")
    return {f64 ? peak_kernels::sse2_f64 : peak_kernels::sse2_f32,
            2.0 * (f64 ? 2 : 4) * peak_kernels::kSse2Chains};
  throw UsageError(fmt::format("unknown peak path '{}' (avx512f, avx2+fma or portable)", path));
}

/// Seconds of one run of `kernel` over `iterations` rounds.
double timed(const Kernel& kernel, std::int64_t iterations) {
  const auto start = std::chrono::steady_clock::now();
  volatile double sink = kernel.run(iterations);
  (void)sink;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<std::string> peak_paths() {
  std::vector<std::string> paths;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) paths.emplace_back("avx512f");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    paths.emplace_back("avx2+fma");
  }
  paths.emplace_back("portable");
  return paths;
}

CorePeak measure_core_peak(DType dtype, const std::string& path, double seconds, int repeats) {
  const Kernel kernel = kernel_of(dtype, path);
  const std::vector<std::string> paths = peak_paths();
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
    std::string runs;
    for (const std::string& p : paths) runs += (runs.empty() ? "" : ", ") + p;
    throw UsageError("this CPU cannot run the peak path '" + path + "' (it runs " + runs + ")");
  }
  if (!(seconds > 0) || repeats < 1) {
    throw UsageError("bench peak needs a positive time per run and at least one repeat");
  }
  // Rounds for about `seconds`, from a short first run that also warms the core up.
  std::int64_t iterations = 1 << 16;
  double elapsed = timed(kernel, iterations);
  while (elapsed < seconds / 10) elapsed = timed(kernel, iterations *= 4);
  iterations = std::max<std::int64_t>(1, static_cast<std::int64_t>(iterations * seconds / elapsed));
  // The fastest run: another process on the core only ever slows one down, and a peak is what
  // the core reaches at best.
  double fastest = 0;
  for (int r = 0; r < repeats; ++r) {
    fastest = std::max(fastest, kernel.flops_per_iteration * static_cast<double>(iterations) /
                                    timed(kernel, iterations));
  }
  return {dtype, path, fastest};
}

CorePeak fastest_core_peak(DType dtype, double seconds, int repeats) {
  CorePeak best;
  for (const std::string& path : peak_paths()) {
    const CorePeak measured = measure_core_peak(dtype, path, seconds, repeats);
    if (measured.flops_per_second > best.flops_per_second) best = measured;
  }
  return best;
}

}  // namespace tplab::bench
