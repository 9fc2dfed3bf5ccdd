// `tplab bench peak`: one core's peak, in f64 and f32, for each instruction path this CPU runs:
// the denominator of model FLOPs utilisation on the CPU, measured rather than assumed.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "bench_commands.hpp"
#include "core/error.hpp"
#include "fma_peak.hpp"
#include "launch_options.hpp"
#include "output_options.hpp"
#include "process_resources.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

struct PeakOptions {
  double seconds = 0.2;
  int repeats = 5;
  std::optional<std::string> json;
};

int run_peak(const PeakOptions& o) {
  if (!(o.seconds > 0 && o.seconds <= 60)) {
    throw UsageError(fmt::format("--seconds {} is not a time from above 0 to 60 s", o.seconds));
  }
  if (o.json) require_writable_file(*o.json, "--json");
  fmt::print(
      "one core's peak: multiply-adds in independent chains, 2 flops each, on the calling "
      "thread; the fastest of {} runs of {:g} s after a warm-up\n\n  {:<5} {:<9} {:>10}\n",
      o.repeats, o.seconds, "dtype", "path", "GFLOP/s");
  nlohmann::json paths = nlohmann::json::array();
  nlohmann::json peak = nlohmann::json::object();
  for (DType dtype : {DType::f64, DType::f32}) {
    bench::CorePeak best;
    for (const std::string& path : bench::peak_paths()) {
      const bench::CorePeak p = bench::measure_core_peak(dtype, path, o.seconds, o.repeats);
      fmt::print("  {:<5} {:<9} {:>10.1f}\n", dtype_name(dtype), path, p.flops_per_second / 1e9);
      paths.push_back({{"dtype", std::string(dtype_name(dtype))},
                       {"path", path},
                       {"flops_per_s", p.flops_per_second}});
      if (p.flops_per_second > best.flops_per_second) best = p;
    }
    peak[std::string(dtype_name(dtype))] = {{"path", best.path},
                                            {"flops_per_s_per_core", best.flops_per_second}};
  }
  const int cores = bench::available_cores();
  fmt::print(
      "\npeak of one core: f64 {:.1f} GFLOP/s ({}), f32 {:.1f} GFLOP/s ({}); this machine's {} "
      "cores: f64 {:.1f}, f32 {:.1f} GFLOP/s if each reaches it alone.\n"
      "bench step, bench scaling and train divide their FLOP/s by min(np, cores) times the "
      "fastest path's (MFU), measured again at their start.\n",
      peak["f64"]["flops_per_s_per_core"].get<double>() / 1e9,
      peak["f64"]["path"].get<std::string>(),
      peak["f32"]["flops_per_s_per_core"].get<double>() / 1e9,
      peak["f32"]["path"].get<std::string>(), cores,
      cores * peak["f64"]["flops_per_s_per_core"].get<double>() / 1e9,
      cores * peak["f32"]["flops_per_s_per_core"].get<double>() / 1e9);
  if (o.json) {
    const nlohmann::json document = {{"command", "bench peak"}, {"seconds", o.seconds},
                                     {"repeats", o.repeats},    {"cores", cores},
                                     {"paths", paths},          {"peak", peak}};
    write_file_safely(*o.json, document.dump(2) + "\n", "--json");
  }
  return 0;
}

}  // namespace

void add_bench_peak_command(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<PeakOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "peak",
      "One core's peak FLOP/s in f64 and f32, per instruction path (AVX-512, AVX2+FMA, "
      "portable SSE2): the denominator of MFU, measured");
  cmd->add_option("--seconds", o->seconds, "length of each timed run")->capture_default_str();
  add_repeats_option(*cmd, o->repeats, "timed runs; the fastest is the peak");
  add_json_option(*cmd, o->json, "the results");
  cmd->callback([o, &exit_code] { exit_code = run_peak(*o); });
}

}  // namespace tplab::app
