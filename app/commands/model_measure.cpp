/// @file
/// `tplab model calibrate` and `tplab model compare`: the cost model against this machine.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <optional>

#include "block_training_options.hpp"
#include "calibration.hpp"
#include "core/error.hpp"
#include "launch_options.hpp"
#include "mesh_options.hpp"
#include "model_options.hpp"
#include "mpi_command.hpp"
#include "mpi_launch.hpp"
#include "option_effects.hpp"
#include "output_lock.hpp"
#include "output_options.hpp"
#include "problem_options.hpp"
#include "projection.hpp"
#include "registry/make_scheme.hpp"
#include "safe_output.hpp"
#include "scheme_choice.hpp"
#include "step_timer.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

/// bench step's default shape: large enough that its products run at the calibrated rate.
constexpr BlockShape kCompareShape{4, 256, 1024, 16};

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

WorldResult calibrate_in_world(const ModelOptions& o, World& w) {
  const model::Calibration c = model::calibrate(w.comm, w.device);
  if (w.comm.rank() == 0) {
    const nlohmann::json profile = {
        {"profiles", {{"local", model::profile_json(model::local_profile(c))}}}};
    write_file_safely(o.profile_out, profile.dump(2) + "\n", "--profile-out");
    print_calibration(c, o.profile_out);
  }
  return WorldResult{};
}

/// The step bench step times for `scheme` at the comparison's shape: f32, overlap off.
bench::StepConfig step_config(const ModelOptions& o, const std::string& scheme,
                              const BlockShape& shape) {
  return {.scheme = scheme,
          .options = o.scheme,
          .shape = shape,
          .dtype = DType::f32,
          .warmup = 1,
          .repeats = o.repeats};
}

/// One step of the comparison, timed as bench step times it.
WorldResult compare_in_world(const ModelOptions& o, World& w) {
  if (o.schemes.size() != 1) {
    throw UsageError("under mpiexec, model compare times one --scheme at the world it was given");
  }
  const bench::StepTiming t = bench::time_step(
      w.comm, w.device, step_config(o, o.schemes[0], o.block_shape(kCompareShape)));
  const nlohmann::json record = {{"step_ms", t.step_seconds.median * 1e3},
                                 {"comm_ms", t.comm_seconds.median * 1e3},
                                 {"comm_least_ms", t.comm_seconds_least.median * 1e3}};
  return {.records = nlohmann::json::array({record}), .pass = true};
}

/// The launcher's options of a model run: its --json is its own document, written at the end
/// (and locked by the command itself until then).
LaunchOptions launch_options(const ModelOptions& o) {
  return {.json = std::nullopt,
          .timeout = o.timeout,
          .hosts = {},
          .allow_many_ranks = o.allow_many_ranks};
}

/// `model calibrate`, launched or in the world.
int run_calibration(const CLI::App& command, const ModelOptions& o) {
  if (launched_by_mpi()) {
    return run_in_world(WorldSetup::for_job({kCalibrationRanks}, o.json),
                        [&](World& w) { return calibrate_in_world(o, w); });
  }
  require_writable_file(o.profile_out, "--profile-out");
  LaunchPlan plan;
  plan.jobs = {{.label = "calibration",
                .np = kCalibrationRanks,
                .overrides = {},
                .bytes_per_rank = model::calibration_bytes_per_rank()}};
  plan.tensors = "the matrices of the product and the largest message";
  plan.smaller = "free memory by ending other programs";
  fmt::print("calibrating on {} ranks (a few seconds)\n", kCalibrationRanks);
  const SeriesResult series =
      launch_jobs(command, launch_options(o), plan, [](const SeriesResult&) { return nullptr; });
  if (series.timed_out) {
    fmt::print(stderr, "tplab: the calibration ran past --timeout {} s\n", o.timeout);
  }
  return exit_code_of(series, true);
}

/// One job per scheme and world size that can split the shape (a named scheme must split it),
/// and the model's projection of each.
LaunchPlan plan_comparison(const ModelOptions& o, const BlockShape& shape,
                           const model::HardwareProfile& hw,
                           std::vector<model::Projection>& predictions) {
  LaunchPlan plan;
  plan.tensors =
      "every rank draws the global inputs in f64, then keeps its shards, their gradients and its "
      "activations";
  plan.smaller = "a smaller --shape";
  for (const auto& name : o.chosen_schemes()) {
    const auto scheme = make_scheme(name, o.scheme);
    for (int np : o.np) {
      if (o.named_schemes()) scheme->validate(np, shape);
      if (!scheme->why_not(np, shape).empty()) continue;
      predictions.push_back(model::project(name, o.scheme, np, shape, hw));
      plan.jobs.push_back(
          {.label = name,
           .np = np,
           .overrides = {{"--scheme", {name}}},
           .bytes_per_rank = bench::step_bytes_per_rank(step_config(o, name, shape), np, 1)});
    }
  }
  if (plan.jobs.empty()) {
    throw UsageError(fmt::format("no scheme can split {} over {} ranks", to_string(shape),
                                 fmt::join(o.np, ", ")));
  }
  return plan;
}

/// One row of the table: the model's times beside the measured ones.
nlohmann::json compare_row(const model::Projection& p, const nlohmann::json& run) {
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
      p.scheme, p.gpus, p.grid, p.compute_s * 1e3, p.comm_s() * 1e3, p.step_s() * 1e3, other * 1e3,
      comm * 1e3, least * 1e3, step * 1e3, error(p.compute_s, other), error(p.comm_s(), least),
      error(p.step_s(), step));
  return {
      {"scheme", p.scheme},
      {"np", p.gpus},
      {"grid", p.grid},
      {"model", {{"compute_s", p.compute_s}, {"comm_s", p.comm_s()}, {"step_s", p.step_s()}}},
      {"measured",
       {{"outside_comm_s", other}, {"comm_s", comm}, {"comm_least_s", least}, {"step_s", step}}}};
}

nlohmann::json print_comparison(const BlockShape& shape, const model::HardwareProfile& hw,
                                const std::vector<model::Projection>& predictions,
                                const nlohmann::json& runs) {
  fmt::print("\nmodel against bench step, {}, f32, profile '{}': {}\n", to_string(shape), hw.name,
             hw.description);
  fmt::print("  {:<6} {:>3} {:<9} | {:>24} | {:>32} | {}\n", "scheme", "np", "grid", "model ms",
             "measured ms (median)", "error of the model");
  fmt::print(
      "  {:<6} {:>3} {:<9} | {:>7} {:>7} {:>8} | {:>7} {:>7} {:>7} {:>8} | {:>7} {:>7} {:>7}\n", "",
      "", "", "compute", "comm", "step", "other", "comm", "least", "step", "compute", "comm",
      "step");
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    rows.push_back(compare_row(predictions[i], runs[i]));
  }
  fmt::print(
      "  measured: bench step's medians. 'other' is the step outside collectives: the products\n"
      "  the model counts, and LayerNorm, softmax, GELU and copies, which it does not. 'comm' is\n"
      "  the slowest rank's time inside collectives, which includes waiting for the other ranks\n"
      "  to arrive; 'least' is the least any rank spent there, with less waiting in it: the\n"
      "  model, which knows no waiting, is compared with it.\n");
  return rows;
}

/// `model compare`, launched or in the world.
int run_comparison(const CLI::App& command, const ModelOptions& o) {
  if (launched_by_mpi()) {
    return run_in_world(WorldSetup::for_job(o.np, o.json),
                        [&](World& w) { return compare_in_world(o, w); });
  }
  const BlockShape shape = o.block_shape(kCompareShape);
  if (!o.hardware.empty() && o.hardware != "local") {
    throw UsageError(
        fmt::format("model compare measures this machine, so it needs --hardware local (not '{}'); "
                    "calibrate it first with ./tplab model calibrate",
                    o.hardware));
  }
  refuse_without_effect(command, runs_of(o.chosen_schemes(), o.scheme));
  const auto profiles = model::available_profiles(o.hardware_file);
  const model::HardwareProfile& hw = model::find_profile(profiles, "local");
  std::vector<model::Projection> predictions;
  const LaunchPlan plan = plan_comparison(o, shape, hw, predictions);
  std::optional<OutputLock> json_lock;  // held until the comparison is written
  if (o.json) {
    require_writable_file(*o.json, "--json");
    json_lock.emplace(*o.json, "--json");
  }
  const SeriesResult series =
      launch_jobs(command, launch_options(o), plan, [](const SeriesResult&) { return nullptr; });
  for (const auto& f : series.failures) fmt::print("{}\n", f.describe());
  if (series.runs.size() != plan.jobs.size()) return exit_code_of(series, false);
  const nlohmann::json rows = print_comparison(shape, hw, predictions, series.runs);
  if (o.json) {
    write_file_safely(*o.json, nlohmann::json{{"comparisons", rows}}.dump(2) + "\n", "--json");
  }
  return exit_code_of(series, true);
}

}  // namespace

void add_model_calibrate_command(CLI::App& model, int& exit_code) {
  auto o = std::make_shared<ModelOptions>();
  o->profile_out = model::calibrated_local_file();
  CLI::App* cmd = model.add_subcommand(
      "calibrate",
      "Measure this machine (matmul rate, MPI collectives at 2 ranks) and write the 'local' "
      "profile, which --hardware local then uses");
  cmd->add_option("--profile-out", o->profile_out, "where to write the local profile")
      ->capture_default_str();
  add_timeout_option(*cmd, o->timeout, "the calibration's job is ended");
  add_allow_many_ranks_flag(*cmd, o->allow_many_ranks);
  // The runner gives the job its world size and a result file of its own: not the user's.
  add_np_option(*cmd, o->np, "2")->group("");
  add_json_option(*cmd, o->json, "the job's result")->group("");
  cmd->callback([o, cmd, &exit_code] { exit_code = run_calibration(*cmd, *o); });
}

void add_model_compare_command(CLI::App& model, int& exit_code) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* cmd = model.add_subcommand(
      "compare",
      "Run bench step on this machine and print the model's time ('local' profile, from model "
      "calibrate) beside the measured one");
  add_scheme_option(*cmd, o->schemes);
  add_dimension_options(*cmd, *o, true);
  add_shape_option(*cmd, o->shape, "4,256,1024,16 for each replica");
  add_np_option(*cmd, o->np, "2");
  add_repeats_option(*cmd, o->repeats, "timed steps per world size");
  add_hardware_options(*cmd, *o, "local, the only one compare takes", false);
  add_depth_option(*cmd, o->scheme);
  add_mesh_options(*cmd, o->scheme);
  add_recompute_option(*cmd, o->scheme.training);
  add_json_option(*cmd, o->json, "the comparison");
  add_timeout_option(*cmd, o->timeout, "a launched job is ended");
  add_allow_many_ranks_flag(*cmd, o->allow_many_ranks);
  cmd->callback([o, cmd, &exit_code] { exit_code = run_comparison(*cmd, *o); });
}

}  // namespace tplab::app
