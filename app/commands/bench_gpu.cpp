// `tplab bench gpu`: the block on one GPU against cuBLAS's matmul rate and the copy bandwidth.
#include <fmt/format.h>

#include <optional>

#include "backend/cuda_backend.hpp"
#include "bench_commands.hpp"
#include "core/error.hpp"
#include "gpu_block_bench.hpp"
#include "launch_options.hpp"
#include "mfu.hpp"
#include "output_options.hpp"
#include "problem_options.hpp"
#include "safe_output.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

struct GpuBenchOptions {
  std::optional<BlockShape> shape;  ///< unset: 8,2048,4096,32
  DType dtype = DType::bf16;
  int warmup = 2;
  int repeats = 5;
  std::optional<std::string> json;
  std::optional<std::string> trace;
};

/// The step's model FLOPs per second over the GPU's dense peak.
double mfu_of(const bench::GpuBenchResult& r, const nlohmann::json& peak) {
  return r.step_flops / r.step_seconds.median / peak["flops_per_s"].get<double>();
}

/// The MFU line, with the peak's value and source, or why there is none.
void print_mfu(const bench::GpuBenchResult& r, const std::string& gpu, const nlohmann::json& peak) {
  const std::string dtype(dtype_name(r.config.dtype));
  if (peak.is_null()) {
    fmt::print(
        "  MFU: no hardware profile names the GPU '{}' with a dense {} peak: add it to "
        "model/hardware.json (gpu_names, dense_peak_flops_per_s)\n",
        gpu, dtype);
    return;
  }
  fmt::print(
      "  MFU {:.1f}%: the block's model FLOPs a second over {}'s dense {} peak, {:.0f} TFLOP/s",
      100 * mfu_of(r, peak), gpu, dtype, peak["flops_per_s"].get<double>() / 1e12);
  const double sparse = peak["sparse_flops_per_s"].get<double>();
  if (sparse > 0) fmt::print(" (not the {:.0f} TFLOP/s quoted with 2:4 sparsity)", sparse / 1e12);
  fmt::print("\n       profile {}: {}\n", peak["profile"].get<std::string>(),
             peak["source"].get<std::string>());
}

/// One rank, in this process: the block through the runner's CUDA backend, where NCCL on one
/// rank makes the scheme's collectives cost nothing, as on a single GPU.
int run_gpu_bench(const GpuBenchOptions& o) {
  bench::GpuBenchConfig config;
  config.shape = o.shape.value_or(BlockShape{8, 2048, 4096, 32});
  config.dtype = o.dtype;
  config.warmup = o.warmup;
  config.repeats = o.repeats;
  cuda::visible_devices();  // NoDeviceError, saying why, before MPI starts
  if (o.json) require_writable_file(*o.json, "--json");
  if (o.trace) {
    if (o.json && *o.trace == *o.json) {
      throw UsageError(fmt::format(
          "--trace {} is also the --json: give the timeline a file of its own", *o.trace));
    }
    require_writable_file(*o.trace, "--trace");
  }
  WorldSetup setup = WorldSetup::for_job({1}, std::nullopt, o.trace);
  setup.backend = "cuda";
  setup.comm = "nccl";
  return run_in_world(setup, [&](World& w) {
    const bench::GpuBenchResult r = bench::run_gpu_bench(w.comm, w.device, config);
    bench::print_gpu_bench(r, stdout);
    const std::string gpu = cuda::gpu_name(w.device);
    const nlohmann::json peak = gpu_dense_peak(gpu, config.dtype);
    print_mfu(r, gpu, peak);
    nlohmann::json document = bench::to_json(r);
    document["gpu"] = gpu;
    document["peak"] = peak;
    document["mfu"] = peak.is_null() ? nlohmann::json(nullptr) : nlohmann::json(mfu_of(r, peak));
    if (o.json) write_file_safely(*o.json, document.dump(2) + "\n", "--json");
    return WorldResult{};
  });
}

}  // namespace

void add_bench_gpu_command(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<GpuBenchOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "gpu",
      "One block's forward+backward on one GPU: time, TFLOP/s against a cuBLAS matmul, and each "
      "kernel's bandwidth against a device-to-device copy (all from CUDA events)");
  add_shape_option(*cmd, o->shape, "8,2048,4096,32");
  add_dtype_option(*cmd, o->dtype);
  add_warmup_option(*cmd, o->warmup, "calls");
  add_repeats_option(*cmd, o->repeats, "timed calls; the median is reported");
  add_json_option(*cmd, o->json, "the results");
  add_trace_option(*cmd, o->trace,
                   "the run's timeline (each operation on the host and, from CUDA events, on the "
                   "GPU's stream; each operation is an NVTX range too, for nsys)");
  cmd->callback([o, &exit_code] { exit_code = run_gpu_bench(*o); });
}

}  // namespace tplab::app
