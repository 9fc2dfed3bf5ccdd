#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>

#include "comm/mpi_comm.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "job_series.hpp"
#include "mpi_launch.hpp"
#include "step_timer.hpp"

namespace tplab::app {
namespace {

struct StepOptions {
  std::string scheme = "1d";
  std::vector<int> np = {1};
  std::string dtype = "f32";
  std::string shape = "4,256,1024,16";
  int warmup = 1;
  int repeats = 5;
  int depth = 0;
  bool reference = false;
  std::string json;
  int timeout = 600;
};

nlohmann::json to_json(const bench::StepTiming& t, const bench::Spread* reference) {
  const auto spread = [](const bench::Spread& s) {
    return nlohmann::json{{"median", s.median}, {"min", s.min}, {"max", s.max}};
  };
  nlohmann::json j = {{"scheme", t.config.scheme},
                      {"np", t.world_size},
                      {"dtype", dtype_name(t.config.dtype)},
                      {"shape",
                       {{"b", t.config.shape.b},
                        {"s", t.config.shape.s},
                        {"h", t.config.shape.h},
                        {"heads", t.config.shape.heads}}},
                      {"warmup", t.config.warmup},
                      {"repeats", t.config.repeats},
                      {"step_s", spread(t.step_seconds)},
                      {"comm_s", spread(t.comm_seconds)},
                      {"comm_least_s", spread(t.comm_seconds_least)},
                      {"comm_share", t.comm_share},
                      {"bytes_per_rank", t.bytes_per_rank},
                      {"flops", t.flops},
                      {"gflops_per_s", t.gflops_per_second},
                      {"tokens_per_s", t.tokens_per_second}};
  if (reference != nullptr) j["reference_step_s"] = spread(*reference);
  return j;
}

bench::StepConfig config_of(const StepOptions& o) {
  bench::StepConfig c;
  c.scheme = o.scheme;
  c.options.depth = o.depth;
  c.shape = parse_block_shape(o.shape);
  c.dtype = parse_dtype(o.dtype);
  c.warmup = o.warmup;
  c.repeats = o.repeats;
  return c;
}

int step_in_world(const StepOptions& o) {
  MpiSession session;
  CpuDevice device;
  auto world = MpiComm::world(std::make_shared<CommCounters>());
  try {
    const bench::StepConfig config = config_of(o);
    const bench::StepTiming t = bench::time_step(*world, device, config);
    std::optional<bench::Spread> reference;
    if (o.reference && world->rank() == 0) reference = bench::time_reference_step(config);
    if (world->rank() == 0) {
      fmt::print(
          "{} np={} {} {}: step {:.1f} ms (min {:.1f}, max {:.1f}), in collectives {:.1f} ms "
          "({:.0f}%), {:.1f} GFLOP/s\n",
          config.scheme, t.world_size, dtype_name(config.dtype), to_string(config.shape),
          t.step_seconds.median * 1e3, t.step_seconds.min * 1e3, t.step_seconds.max * 1e3,
          t.comm_seconds.median * 1e3, t.comm_share * 100, t.gflops_per_second);
      if (reference) {
        fmt::print("reference (one process, Eigen, {}): {:.1f} ms (min {:.1f}, max {:.1f})\n",
                   dtype_name(config.dtype), reference->median * 1e3, reference->min * 1e3,
                   reference->max * 1e3);
      }
      if (!o.json.empty()) {
        std::ofstream(o.json)
            << nlohmann::json{{"runs", {to_json(t, reference ? &*reference : nullptr)}}}.dump(2)
            << "\n";
      }
    }
    return 0;
  } catch (const UsageError& e) {
    fmt::print(stderr, "tplab: error [rank {}/{}]: {}\n", world->rank(), world->size(), e.what());
    return kExitUsage;
  }
}

int drive_steps(const StepOptions& o) {
  const bench::StepConfig config = config_of(o);
  const auto scheme = make_scheme(config.scheme, config.options);
  std::vector<Job> jobs;
  for (int np : o.np) {
    scheme->validate(np, config.shape);
    jobs.push_back({config.scheme, np});
  }
  const SeriesResult series = run_series(
      jobs,
      [&](const Job& job, const std::string& json) {
        std::vector<std::string> args = {"bench",     "step",
                                         "--scheme",  job.scheme,
                                         "--np",      std::to_string(job.np),
                                         "--dtype",   o.dtype,
                                         "--shape",   o.shape,
                                         "--warmup",  std::to_string(o.warmup),
                                         "--repeats", std::to_string(o.repeats),
                                         "--depth",   std::to_string(o.depth),
                                         "--json",    json};
        if (o.reference && job.np == jobs.front().np) args.push_back("--reference");
        return args;
      },
      o.timeout);
  for (const auto& f : series.failures) fmt::print("{}\n", f);
  if (series.runs.empty()) return series.usage_error ? kExitUsage : kExitFailed;

  const double base = series.runs.front()["step_s"]["median"].get<double>();
  const int base_np = series.runs.front()["np"].get<int>();
  fmt::print("\n  {:>3} {:>10} {:>10} {:>8} {:>9} {:>11}  {}\n", "np", "step ms", "comm ms",
             "comm %", "GFLOP/s", "efficiency", "");
  for (const auto& r : series.runs) {
    const int np = r["np"].get<int>();
    const double step = r["step_s"]["median"].get<double>();
    // strong scaling: the same global problem on np ranks against base_np ranks
    const double efficiency = base * base_np / (step * np);
    fmt::print("  {:>3} {:>10.1f} {:>10.1f} {:>7.0f}% {:>9.1f} {:>11.2f}  {}\n", np, step * 1e3,
               r["comm_s"]["median"].get<double>() * 1e3, r["comm_share"].get<double>() * 100,
               r["gflops_per_s"].get<double>(), efficiency,
               np > 2 ? "(more ranks than this machine's cores: oversubscribed)" : "");
  }
  if (!o.json.empty())
    std::ofstream(o.json) << nlohmann::json{{"runs", series.runs}}.dump(2) << "\n";
  return series.failures.empty() ? 0 : kExitFailed;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  CLI::App* bench = app.add_subcommand("bench", "Measure: step times and scaling");
  bench->require_subcommand(1);
  auto o = std::make_shared<StepOptions>();
  CLI::App* step = bench->add_subcommand(
      "step",
      "Time one forward+backward step of a scheme at each world size (median of repeats "
      "after warm-up), with the time inside collectives and strong-scaling efficiency");
  step->add_option("--scheme", o->scheme, "scheme")->capture_default_str();
  step->add_option("--np", o->np, "world sizes")->delimiter(',')->capture_default_str();
  step->add_option("--dtype", o->dtype, "f64 or f32")->capture_default_str();
  step->add_option("--shape", o->shape, "global shape b,s,h,heads")->capture_default_str();
  step->add_option("--warmup", o->warmup, "untimed steps first")->capture_default_str();
  step->add_option("--repeats", o->repeats, "timed steps")->capture_default_str();
  step->add_option("--depth", o->depth, "2.5D depth d (default: chosen from the world size)");
  step->add_flag("--reference", o->reference,
                 "also time the single-device reference on the same shape");
  step->add_option("--json", o->json, "write the results as JSON");
  step->add_option("--timeout", o->timeout, "seconds before a launched job is ended")
      ->capture_default_str();
  step->callback(
      [o, &exit_code] { exit_code = launched_by_mpi() ? step_in_world(*o) : drive_steps(*o); });
}

}  // namespace tplab::app
