/// @file
/// `tplab model --calibrate` and `--compare`: the cost model against this machine.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "calibration.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "job_series.hpp"
#include "launch_preflight.hpp"
#include "model_options.hpp"
#include "mpi_launch.hpp"
#include "projection.hpp"
#include "safe_output.hpp"
#include "step_timer.hpp"

namespace tplab::app {
namespace {

/// bench step's default shape: large enough that its products run at the calibrated rate.
constexpr std::string_view kCompareShape = "4,256,1024,16";

/// The world size of the calibration: the fewest ranks that communicate.
constexpr int kCalibrationRanks = 2;

void print_calibration(const model::Calibration& c, const std::string& file) {
  fmt::print("calibrated this machine on {} ranks, f32:\n", c.ranks);
  fmt::print("  matmul [{0}, {0}] x [{0}, {0}] on every rank at once: {1:.1f} GFLOP/s per rank\n",
             c.matmul_size, c.matmul_flops_per_s / 1e9);
  fmt::print("  {:<15} {:>12} {:>14} {:>14} {:>12} {:>12}\n", "collective", "small us", "medium ms",
             "large ms", "alpha us", "bandwidth");
  for (const auto& p : c.collectives) {
    fmt::print("  {:<15} {:>12.1f} {:>14.3f} {:>14.3f} {:>12.2f} {:>7.2f} GB/s\n",
               collective_name(p.collective), p.small_s * 1e6, p.medium_s * 1e3, p.large_s * 1e3,
               p.rate.latency_s * 1e6, p.rate.bandwidth_bytes_per_s / 1e9);
  }
  const auto& first = c.collectives.front();
  fmt::print(
      "  (small {} elements, medium {}, large {}; alpha = small time / ring steps;\n"
      "   bandwidth = N x bus factor x 4 bytes over the time large adds to medium)\n",
      first.small, first.medium, first.large);
  fmt::print("wrote the local profile to {}; use it with --hardware local\n", file);
}

int calibrate_in_world(const ModelOptions& o) {
  MpiSession session;
  CpuDevice device;
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  try {
    const model::Calibration c = model::calibrate(*world, device);
    if (world->rank() == 0) {
      const nlohmann::json profile = {
          {"profiles", {{"local", model::profile_json(model::local_profile(c))}}}};
      write_file_safely(o.profile_out, profile.dump(2) + "\n", "--profile-out");
      print_calibration(c, o.profile_out);
    }
    return 0;
  } catch (const UsageError& e) {
    fmt::print(stderr, "tplab: error [rank {}/{}]: {}\n", world->rank(), world->size(), e.what());
    return kExitUsage;
  }
}

}  // namespace

int run_calibration(const ModelOptions& o) {
  if (launched_by_mpi()) return calibrate_in_world(o);
  require_writable_file(o.profile_out, "--profile-out");
  preflight({{{"model --calibrate", kCalibrationRanks, model::calibration_bytes_per_rank()}},
             o.allow_many_ranks,
             "the matrices of the product and the largest message",
             "free memory by ending other programs"});
  fmt::print("calibrating: mpiexec -n {} tplab model --calibrate (a few seconds)\n",
             kCalibrationRanks);
  std::fflush(stdout);
  const JobEnd end =
      run_under_mpiexec(kCalibrationRanks, {"model", "--calibrate", "--profile-out", o.profile_out},
                        LaunchSettings{o.timeout, {}});
  if (end.code == kTimedOut) {
    fmt::print(stderr, "tplab: the calibration ran past --timeout {} s\n", o.timeout);
  }
  return end.code;
}

int run_comparison(const ModelOptions& o) {
  if (o.repeats < 1) throw UsageError(fmt::format("--repeats {}: give at least 1", o.repeats));
  for (int np : o.np) {
    if (np < 1) throw UsageError(fmt::format("--np {}: a run needs at least one rank", np));
  }
  const BlockShape shape = o.block_shape(kCompareShape);
  if (!o.hardware.empty() && o.hardware != "local") {
    throw UsageError(fmt::format(
        "--compare measures this machine, so it needs --hardware local (not '{}'); calibrate it "
        "first with ./tplab model --calibrate",
        o.hardware));
  }
  const auto profiles = model::available_profiles(o.hardware_file);
  const model::HardwareProfile& hw = model::find_profile(profiles, "local");

  std::vector<Job> jobs;
  std::vector<model::Projection> predictions;
  LaunchRequest request{{},
                        o.allow_many_ranks,
                        "every rank draws the global inputs in f64, then keeps its shards, their "
                        "gradients and its activations",
                        "a smaller --shape"};
  for (const auto& name : o.chosen_schemes()) {
    const auto scheme = make_scheme(name, o.scheme_options());
    for (int np : o.np) {
      if (o.named_schemes()) scheme->validate(np, shape);
      if (!scheme->why_not(np, shape).empty()) continue;
      predictions.push_back(model::project(name, o.scheme_options(), np, shape, hw));
      jobs.push_back({name, np});
      bench::StepConfig step;
      step.scheme = name;
      step.options = o.scheme_options();
      step.shape = shape;
      step.dtype = DType::f32;
      // bench step compares overlap off and on: two modules
      request.jobs.push_back(
          {fmt::format("bench step {}", name), np, bench::step_bytes_per_rank(step, np, 2)});
    }
  }
  if (jobs.empty()) {
    throw UsageError(fmt::format("no scheme can split {} over {} ranks", to_string(shape),
                                 fmt::join(o.np, ", ")));
  }
  if (o.json) require_writable_file(*o.json, "--json");
  preflight(request);
  const SeriesResult series = run_series(
      jobs,
      [&](const Job& job, const std::string& json) {
        return std::vector<std::string>{
            "bench",     "step",
            "--scheme",  job.label,
            "--np",      std::to_string(job.np),
            "--dtype",   "f32",
            "--shape",   fmt::format("{},{},{},{}", shape.b, shape.s, shape.h, shape.heads),
            "--repeats", std::to_string(o.repeats),
            "--depth",   std::to_string(o.depth),
            "--json",    json};
      },
      LaunchSettings{o.timeout, {}});
  for (const auto& f : series.failures) fmt::print("{}\n", f.describe());
  if (series.runs.size() != jobs.size()) {
    if (series.usage_error) return kExitUsage;
    return series.timed_out ? kTimedOut : kExitFailed;
  }

  fmt::print("\nmodel against bench step, {}, f32, profile '{}': {}\n", to_string(shape), hw.name,
             hw.description);
  fmt::print("  {:<6} {:>3} {:<9} | {:>24} | {:>32} | {}\n", "scheme", "np", "grid", "model ms",
             "measured ms (median)", "error of the model");
  fmt::print(
      "  {:<6} {:>3} {:<9} | {:>7} {:>7} {:>8} | {:>7} {:>7} {:>7} {:>8} | {:>7} {:>7} {:>7}\n", "",
      "", "", "compute", "comm", "step", "other", "comm", "least", "step", "compute", "comm",
      "step");
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const model::Projection& p = predictions[i];
    const auto& run = series.runs[i];
    const double step = run["step_ms"].get<double>() / 1e3;
    const double comm = run["comm_ms"].get<double>() / 1e3;
    const double least = run["comm_least_ms"].get<double>() / 1e3;
    const double other = step - comm;  // outside collectives: compute and the rest
    const auto error = [](double model, double measured) {
      return measured > 0 ? fmt::format("{:+.0f}%", (model - measured) / measured * 100)
                          : std::string("-");
    };
    fmt::print(
        "  {:<6} {:>3} {:<9} | {:>7.1f} {:>7.1f} {:>8.1f} | {:>7.1f} {:>7.1f} {:>7.1f} {:>8.1f} | "
        "{:>7} {:>7} {:>7}\n",
        p.scheme, p.gpus, p.grid, p.compute_s * 1e3, p.comm_s() * 1e3, p.step_s() * 1e3,
        other * 1e3, comm * 1e3, least * 1e3, step * 1e3, error(p.compute_s, other),
        error(p.comm_s(), least), error(p.step_s(), step));
    rows.push_back(
        {{"scheme", p.scheme},
         {"np", p.gpus},
         {"grid", p.grid},
         {"model", {{"compute_s", p.compute_s}, {"comm_s", p.comm_s()}, {"step_s", p.step_s()}}},
         {"measured",
          {{"outside_comm_s", other},
           {"comm_s", comm},
           {"comm_least_s", least},
           {"step_s", step}}}});
  }
  fmt::print(
      "  measured: bench step's medians. 'other' is the step outside collectives: the products\n"
      "  the model counts, and LayerNorm, softmax, GELU and copies, which it does not. 'comm' is\n"
      "  the slowest rank's time inside collectives, which includes waiting for the other ranks\n"
      "  to arrive; 'least' is the least any rank spent there, with less waiting in it: the\n"
      "  model, which knows no waiting, is compared with it.\n");
  if (o.json) {
    write_file_safely(*o.json, nlohmann::json{{"comparisons", rows}}.dump(2) + "\n", "--json");
  }
  return series.failures.empty() ? 0 : kExitFailed;
}

}  // namespace tplab::app
