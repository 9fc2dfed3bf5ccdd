// `tplab bench gpu`: the block on one GPU against cuBLAS's matmul rate and the copy bandwidth.
#include <fmt/format.h>

#include <optional>

#include "bench_commands.hpp"
#include "core/error.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "gpu_block_bench.hpp"
#include "safe_output.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

struct GpuBenchOptions {
  std::string shape = "8,2048,4096,32";
  std::string dtype = "bf16";
  int warmup = 2;
  int repeats = 5;
  std::optional<std::string> json;
};

/// One rank, in this process: the block through the runner's CUDA backend, where NCCL on one
/// rank makes the scheme's collectives cost nothing, as on a single GPU.
int run_gpu_bench(const GpuBenchOptions& o) {
  bench::GpuBenchConfig config;
  config.shape = parse_block_shape(o.shape);
  config.dtype = parse_dtype(o.dtype);
  config.warmup = o.warmup;
  config.repeats = o.repeats;
  cuda::visible_devices();  // NoDeviceError, saying why, before MPI starts
  if (o.json) require_writable_file(*o.json, "--json");
  WorldSetup setup = WorldSetup::for_job({1}, std::nullopt);
  setup.backend = "cuda";
  setup.comm = "nccl";
  return run_in_world(setup, [&](World& w) {
    const bench::GpuBenchResult r = bench::run_gpu_bench(w.comm, w.device, config);
    bench::print_gpu_bench(r, stdout);
    if (o.json) write_file_safely(*o.json, bench::to_json(r).dump(2) + "\n", "--json");
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
  cmd->add_option("--shape", o->shape, "b,s,h,heads")->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "bf16, f32 or f64")->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "untimed calls first")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "timed calls; the median is reported")
      ->capture_default_str();
  cmd->add_option("--json", o->json,
                  "write the results as JSON (a new or plain file in a folder of your own)");
  cmd->callback([o, &exit_code] { exit_code = run_gpu_bench(*o); });
}

}  // namespace tplab::app
