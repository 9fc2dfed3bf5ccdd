/// @file
/// The GPU benchmark: one block's forward and backward on one GPU, against the rates the same
/// GPU reaches in a plain cuBLAS matmul and a device-to-device copy measured in the same run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/block_shape.hpp"
#include "step_timer.hpp"

namespace tplab::bench {

/// What to measure.
struct GpuBenchConfig {
  BlockShape shape{8, 2048, 4096, 32};  ///< b, s, h, heads of the block
  DType dtype = DType::bf16;            ///< storage of every tensor
  int warmup = 2;                       ///< untimed calls before each measurement
  int repeats = 5;                      ///< timed calls; the median is reported
  std::uint64_t seed = 1;               ///< of the block's inputs and parameters
};

/// One of tplab's kernels at the block's shapes: its time and the bandwidth it reaches, from
/// the bytes it must move at least (each input read once, each output written once).
struct KernelRate {
  std::string name;     ///< the Device operation
  std::string shape;    ///< the extents it ran on
  double bytes = 0;     ///< at least moved per call
  Spread seconds;       ///< per call, CUDA events
  double gb_per_s = 0;  ///< bytes / median seconds / 1e9
  double of_copy = 0;   ///< gb_per_s over the device-to-device copy's
};

/// What one run measured, all times from CUDA events (warm-up, then the median of repeats).
struct GpuBenchResult {
  GpuBenchConfig config;            ///< what was asked for
  std::string device;               ///< CudaDevice::description()
  Spread step_seconds;              ///< forward + backward of the block (1D scheme on one rank)
  double step_flops = 0;            ///< model::block_step_flops
  double step_tflops = 0;           ///< step_flops over the median step time, in TFLOP/s
  std::string matmul_shape;         ///< the plain cuBLAS matmul timed for the reference rate
  Spread matmul_seconds;            ///< the cuBLAS matmul's time
  double matmul_tflops = 0;         ///< its rate over the median, in TFLOP/s
  double step_of_matmul = 0;        ///< step_tflops / matmul_tflops (goal >= 0.6)
  double copy_bytes = 0;            ///< read + written by the device-to-device copy
  Spread copy_seconds;              ///< the copy's time
  double copy_gb_per_s = 0;         ///< its bandwidth
  std::vector<KernelRate> kernels;  ///< goal: of_copy >= 0.7 each
};

/// Runs the benchmark on `device` (a GPU) with `world` (one rank). Needs about
/// 3 b n s^2 + 40 b s h elements of memory (attention scores and the saved activations).
GpuBenchResult run_gpu_bench(Comm& world, Device& device, const GpuBenchConfig& config);

/// The result as a table, for people.
void print_gpu_bench(const GpuBenchResult& r, std::FILE* out);

/// The result as JSON.
nlohmann::json to_json(const GpuBenchResult& r);

}  // namespace tplab::bench
