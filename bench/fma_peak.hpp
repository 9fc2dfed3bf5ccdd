/// @file
/// The peak of one CPU core: fused multiply-adds in as many independent chains as keep its FMA
/// units busy, timed, for each instruction set the CPU runs (AVX-512, AVX2 with FMA, and the
/// portable SSE2 multiply and add beside them), in f64 and f32. The denominator of model FLOPs
/// utilisation on the CPU: measured, never taken from a datasheet.
#pragma once

#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace tplab::bench {

/// One instruction path's rate on the calling thread's core.
struct CorePeak {
  /// The element type timed: f64 or f32.
  DType dtype = DType::f64;
  /// "avx512f", "avx2+fma" or "portable" (SSE2 multiply then add: what runs on every x86-64).
  std::string path;
  /// Floating-point operations per second, 2 per multiply-add: the fastest of the repeats (a
  /// peak is what the core reaches at best; another process on it only slows a run down).
  double flops_per_second = 0;
};

/// The instruction paths this CPU can run, fastest first ("portable" always, last).
std::vector<std::string> peak_paths();

/// Times `path` for `dtype` on the calling thread: `repeats` runs of about `seconds` each
/// after a warm-up, and the fastest of them. Throws UsageError for a path this CPU cannot run.
CorePeak measure_core_peak(DType dtype, const std::string& path, double seconds, int repeats);

/// The fastest of every path this CPU runs for `dtype`: one core's peak.
CorePeak fastest_core_peak(DType dtype, double seconds, int repeats);

}  // namespace tplab::bench
