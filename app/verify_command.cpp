#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>

#include "comm/mpi_comm.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "job_series.hpp"
#include "mpi_launch.hpp"
#include "report.hpp"

namespace tplab::app {
namespace {

/// A shape every scheme can use at its default world sizes: a batch of 12 sequences and 12
/// heads divide by 1, 2, 3 and 4 (whole sequences and heads per rank); hidden 72 divides by
/// 4, 8 and 9.
constexpr std::string_view kDefaultShape = "12,8,72,12";

struct VerifyOptions {
  std::vector<std::string> schemes;
  std::vector<int> np;
  std::vector<std::string> dtypes = {"f64", "f32"};
  std::string shape = std::string(kDefaultShape);
  std::uint64_t seed = 1;
  bool exact = false;
  std::string json;
  int depth = 0;
  int timeout = 300;
};

std::vector<std::string> chosen_schemes(const VerifyOptions& o) {
  if (o.schemes.empty() || (o.schemes.size() == 1 && o.schemes[0] == "all")) return scheme_names();
  for (const auto& s : o.schemes) make_scheme(s);  // unknown names fail here, naming the known
  return o.schemes;
}

/// The configurations one launch of `world_size` ranks runs: every dtype, the block and the
/// exact linear pair (or the exact one alone with --exact).
std::vector<verify::RunConfig> configurations(const VerifyOptions& o, const std::string& scheme) {
  std::vector<verify::RunConfig> runs;
  const BlockShape shape = parse_block_shape(o.shape);
  for (const auto& d : o.dtypes) {
    const DType dtype = parse_dtype(d);
    for (bool exact : {false, true}) {
      if (o.exact && !exact) continue;
      runs.push_back({scheme, SchemeOptions{o.depth}, shape, dtype, o.seed, exact});
    }
  }
  return runs;
}

// ---- inside mpiexec: run the configurations on this world ------------------------------------

int verify_in_world(const VerifyOptions& o) {
  MpiSession session;
  CpuDevice device;
  auto world = MpiComm::world(std::make_shared<CommCounters>());
  const int rank = world->rank();
  try {
    if (!o.np.empty() && (o.np.size() != 1 || o.np[0] != world->size())) {
      throw UsageError(
          fmt::format("--np {} but mpiexec started {} ranks", fmt::join(o.np, ","), world->size()));
    }
    std::vector<verify::RunConfig> runs;
    for (const auto& scheme : chosen_schemes(o)) {
      const auto c = configurations(o, scheme);
      make_scheme(scheme, c.front().options)->validate(world->size(), c.front().shape);
      runs.insert(runs.end(), c.begin(), c.end());
    }
    nlohmann::json json_runs = nlohmann::json::array();
    bool pass = true;
    for (const auto& config : runs) {
      const verify::RunResult result = verify::run_verification(*world, device, config);
      if (rank == 0) verify::print_run(result, stdout);
      json_runs.push_back(verify::to_json(result));
      pass = pass && result.pass;
    }
    if (rank == 0 && !o.json.empty()) {
      std::ofstream(o.json) << nlohmann::json{{"runs", json_runs}}.dump(2) << "\n";
    }
    return pass ? 0 : kExitFailed;
  } catch (const UsageError& e) {
    // Every rank reached the same verdict before any collective: report it and leave together.
    fmt::print(stderr, "tplab: error [rank {}/{}]: {}\n", rank, world->size(), e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    // Only this rank may know: end the whole job rather than leave the others in a collective.
    fmt::print(stderr, "tplab: internal error [rank {}/{}]: {}\n", rank, world->size(), e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitInternal);
    return kExitInternal;
  }
}

// ---- outside mpiexec: launch one job per scheme and world size, then summarise ---------------

std::vector<std::string> child_arguments(const VerifyOptions& o, const Job& job,
                                         const std::string& json) {
  std::vector<std::string> args = {"verify",
                                   "--scheme",
                                   job.scheme,
                                   "--np",
                                   std::to_string(job.np),
                                   "--dtype",
                                   fmt::format("{}", fmt::join(o.dtypes, ",")),
                                   "--shape",
                                   o.shape,
                                   "--seed",
                                   std::to_string(o.seed),
                                   "--depth",
                                   std::to_string(o.depth),
                                   "--json",
                                   json};
  if (o.exact) args.push_back("--exact");
  return args;
}

void print_summary(const nlohmann::json& runs, const std::vector<std::string>& crashed) {
  fmt::print("\n{:=<78}\nsummary\n", "");
  fmt::print("  {:<7} {:>3} {:<5} {:<8} {:>7} {:>9} {:>10} {:>8}  {}\n", "scheme", "np", "dtype",
             "check", "tensors", "max used", "max rel_l2", "comm", "verdict");
  for (const auto& r : runs) {
    double used = 0, rel = 0;
    for (const auto& t : r["tensors"]) {
      const auto value = [&](const char* key) {
        return t[key].is_number() ? t[key].get<double>() : INFINITY;
      };
      used = std::max(used, value("tolerance_used"));
      if (!t["max_rel_l2"].is_null()) rel = std::max(rel, value("rel_l2"));
    }
    fmt::print("  {:<7} {:>3} {:<5} {:<8} {:>7} {:>8.0f}% {:>10.2e} {:>8}  {}\n",
               r["scheme"].get<std::string>(), r["np"].get<int>(), r["dtype"].get<std::string>(),
               r["exact"].get<bool>() ? "exact" : "block", r["tensors"].size(), used * 100, rel,
               r["comm_match"].get<bool>() ? "= model" : "differs",
               r["pass"].get<bool>() ? "PASS" : "FAIL");
  }
  for (const auto& c : crashed) fmt::print("  {}\n", c);
}

int drive(const VerifyOptions& o) {
  const BlockShape shape = parse_block_shape(o.shape);
  for (const auto& d : o.dtypes) parse_dtype(d);
  std::vector<Job> jobs;
  for (const auto& name : chosen_schemes(o)) {
    const auto scheme = make_scheme(name, SchemeOptions{o.depth});
    for (int np : o.np.empty() ? scheme->default_world_sizes() : o.np) {
      scheme->validate(np, shape);
      jobs.push_back({name, np});
    }
  }
  const SeriesResult series = run_series(
      jobs, [&](const Job& job, const std::string& json) { return child_arguments(o, job, json); },
      o.timeout);

  print_summary(series.runs, series.failures);
  bool pass = series.failures.empty() && !series.runs.empty();
  for (const auto& r : series.runs) pass = pass && r["pass"].get<bool>();
  fmt::print("\n{}: {} runs{}\n", pass ? "ALL PASS" : "FAILED", series.runs.size(),
             pass ? ", every tensor within tolerance of the reference and every rank's "
                    "communication equal to the cost model's"
                  : "");
  if (!o.json.empty()) {
    std::ofstream(o.json) << nlohmann::json{{"runs", series.runs}}.dump(2) << "\n";
  }
  if (series.usage_error) return kExitUsage;
  return pass ? 0 : kExitFailed;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check every scheme against the single-device reference, tensor by tensor.\n"
      "Launches mpiexec itself; under mpiexec it runs that one world size.");
  cmd->add_option("--scheme", o->schemes, "schemes to check: 1d, 2d, 2.5d (default: all)")
      ->delimiter(',');
  cmd->add_option("--np", o->np, "world sizes (default: each scheme's own list)")->delimiter(',');
  cmd->add_option("--dtype", o->dtypes, "f64, f32")->delimiter(',')->capture_default_str();
  cmd->add_option("--shape", o->shape, "global shape b,s,h,heads")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of inputs and weights")->capture_default_str();
  cmd->add_flag("--exact", o->exact,
                "only the exact check: integer inputs through the linear layers, zero tolerance");
  cmd->add_option("--depth", o->depth,
                  "2.5D depth d (default: d = p/q^2 with the largest q that fits)");
  cmd->add_option("--json", o->json, "write the results as JSON");
  cmd->add_option("--timeout", o->timeout, "seconds before a launched job is ended")
      ->capture_default_str();
  cmd->callback(
      [o, &exit_code] { exit_code = launched_by_mpi() ? verify_in_world(*o) : drive(*o); });
}

}  // namespace tplab::app
