#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <optional>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "device/cuda/cuda_backend.hpp"
#include "harness.hpp"
#include "hostfile.hpp"
#include "job_result.hpp"
#include "job_series.hpp"
#include "launch_preflight.hpp"
#include "layers/finite_check.hpp"
#include "mpi_launch.hpp"
#include "option_checks.hpp"
#include "problem.hpp"
#include "rank_hosts.hpp"
#include "rank_output.hpp"
#include "report.hpp"
#include "safe_output.hpp"
#include "scheme/scheme_registry.hpp"

namespace tplab::app {
namespace {

/// A shape every scheme can use at its default world sizes: a batch of 12 sequences and 12
/// heads divide by 1, 2, 3 and 4 (whole sequences and heads per rank); 72 tokens and hidden 72
/// divide by 4 and 9 (3D's q^2 at q = 2 and 3; at q = 3 a rank's 8 tokens cut 6-token
/// sequences, which 3D's attention handles by gathering keys and values).
constexpr std::string_view kDefaultShape = "12,6,72,12";

struct VerifyOptions {
  std::vector<std::string> schemes;
  std::vector<int> np;
  std::vector<std::string> dtypes = {"f64", "f32"};
  std::string backend = "cpu";
  std::string comm = "auto";
  std::string shape = std::string(kDefaultShape);
  std::uint64_t seed = 1;
  bool exact = false;
  bool check_finite = false;
  std::optional<std::string> json;
  int depth = 0;
  bool regather = false;
  std::string overlap = "both";
  int timeout = 300;
  std::string hosts;
  bool allow_many_ranks = false;

  SchemeOptions scheme_options(bool with_overlap) const { return {depth, regather, with_overlap}; }
  /// The overlap settings each configuration runs with: off, on, or both (the default).
  std::vector<bool> overlaps() const {
    if (overlap == "both") return {false, true};
    return {overlap == "on"};
  }
};

std::vector<std::string> chosen_schemes(const VerifyOptions& o) {
  if (o.schemes.empty() || (o.schemes.size() == 1 && o.schemes[0] == "all")) return scheme_names();
  for (const auto& s : o.schemes) make_scheme(s);  // unknown names fail here, naming the known
  return o.schemes;
}

/// Refuses, before anything runs, a backend, communicator or dtype that cannot go together.
void validate_backend(const VerifyOptions& o) {
  if (o.backend != "cpu" && o.backend != "cuda") {
    throw UsageError(fmt::format("unknown backend '{}' (use cpu or cuda)", o.backend));
  }
  if (o.comm != "auto" && o.comm != "mpi" && o.comm != "nccl") {
    throw UsageError(fmt::format("unknown communicator '{}' (use auto, mpi or nccl)", o.comm));
  }
  if (o.backend == "cpu" && o.comm == "nccl") {
    throw UsageError("--comm nccl moves GPU memory; it needs --backend cuda");
  }
  for (const auto& d : o.dtypes) {
    if (parse_dtype(d) == DType::bf16 && o.backend == "cpu") {
      throw UsageError("the CPU device computes in f64 or f32; --dtype bf16 needs --backend cuda");
    }
  }
  if (o.exact && o.dtypes == std::vector<std::string>{"bf16"}) {
    throw UsageError("--exact runs in f64 and f32: bf16 holds integers exactly only up to 256");
  }
}

/// The configurations one launch of `world_size` ranks runs: every dtype, the block and the
/// exact linear pair (or the exact one alone with --exact), each with overlap off and on (or
/// as --overlap says). bf16 has no exact run: it holds integers exactly only up to 256, and
/// the exact check's sums are larger. The f64 block draws x around a large common offset
/// (Values::shifted) when h >= kShiftedInputMinHidden: f64's tolerance is tight enough to see
/// a LayerNorm whose variance cancels there, while f32 keeps the centred inputs its tolerance
/// was measured with.
std::vector<verify::RunConfig> configurations(const VerifyOptions& o, const std::string& scheme) {
  std::vector<verify::RunConfig> runs;
  const BlockShape shape = parse_block_shape(o.shape);
  for (const auto& d : o.dtypes) {
    const DType dtype = parse_dtype(d);
    for (bool exact : {false, true}) {
      if (o.exact && !exact) continue;
      if (exact && dtype == DType::bf16) continue;
      const bool shifted =
          dtype == DType::f64 && !exact && shape.h >= verify::kShiftedInputMinHidden;
      for (bool with_overlap : o.overlaps()) {
        runs.push_back({scheme, o.scheme_options(with_overlap), shape, dtype, o.seed, exact,
                        o.check_finite, shifted});
      }
    }
  }
  return runs;
}

// ---- inside mpiexec: run the configurations on this world ------------------------------------

/// The device and world communicator of --backend and --comm.
struct Backend {
  std::unique_ptr<Device> device;
  std::unique_ptr<Comm> world;
};

Backend make_backend(const VerifyOptions& o) {
  Backend b;
  if (o.backend == "cpu") {
    b.device = std::make_unique<CpuDevice>();
    b.world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  } else {
    b.device = cuda::make_device_for_rank();
    b.world = cuda::make_world(*b.device, o.comm, std::make_shared<CommCounters>());
  }
  return b;
}

int verify_in_world(const VerifyOptions& o) {
  MpiSession session;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const RankHosts hosts(MPI_COMM_WORLD);
  Backend backend;
  try {
    validate_backend(o);
    backend = make_backend(o);
  } catch (const NoDeviceError& e) {
    fmt::print(stderr, "tplab: [rank {}/{}] {}\n", rank, size, e.what());
    return kExitNoDevice;
  } catch (const UsageError& e) {
    fmt::print(stderr, "tplab: error [rank {}/{}]: {}\n", rank, size, e.what());
    return kExitUsage;
  }
  Device& device = *backend.device;
  Comm* world = backend.world.get();
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
    require_rank0_output(o.json, "--json");
    if (rank == 0) fmt::print("ranks on {}\n", hosts.summary());
    nlohmann::json json_runs = nlohmann::json::array();
    bool pass = true;
    for (const auto& config : runs) {
      const verify::RunResult result = verify::run_verification(*world, device, config);
      if (rank == 0) verify::print_run(result, stdout);
      json_runs.push_back(verify::to_json(result));
      json_runs.back()["hosts"] = hosts.to_json();
      pass = pass && result.pass;
    }
    if (rank == 0 && o.json) {
      write_result(*o.json,
                   {{"runs", json_runs}, {"pass", pass}, {"failures", nlohmann::json::array()}},
                   "--json");
    }
    return pass ? 0 : kExitFailed;
  } catch (const UsageError& e) {
    // Every rank reached the same verdict before any collective: report it and leave together.
    fmt::print(stderr, "tplab: error [rank {}/{}]: {}\n", rank, world->size(), e.what());
    return kExitUsage;
  } catch (const NonFiniteError& e) {
    // Only this rank may have seen it: end the whole job rather than leave the others waiting.
    fmt::print(stderr, "tplab: [rank {}/{}] --check-finite: {}; ending the job\n", rank,
               world->size(), e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitFailed);
    return kExitFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "tplab: rank {}/{} failed: {}; ending the job\n", rank, world->size(),
               e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitInternal);
    return kExitInternal;
  }
}

// ---- outside mpiexec: launch one job per scheme and world size, then summarise ---------------

/// Refuses, before launching anything, a job of too many ranks or one that would not fit in
/// memory.
void require_room(const VerifyOptions& o, const BlockShape& shape, const std::vector<Job>& jobs) {
  LaunchRequest request{{},
                        o.allow_many_ranks,
                        "every rank holds the whole problem and the reference's answer in f64",
                        "a smaller --shape"};
  for (const Job& j : jobs) {
    request.jobs.push_back({fmt::format("verify {} at {}", j.label, to_string(shape)), j.np,
                            verify::verify_bytes_per_rank(shape)});
  }
  request.hosts = host_count(o.hosts);
  preflight(request);
}

std::vector<std::string> child_arguments(const VerifyOptions& o, const Job& job,
                                         const std::string& json) {
  std::vector<std::string> args = {"verify",
                                   "--scheme",
                                   job.label,
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
                                   "--overlap",
                                   o.overlap,
                                   "--backend",
                                   o.backend,
                                   "--comm",
                                   o.comm,
                                   "--json",
                                   json};
  if (o.exact) args.push_back("--exact");
  if (o.check_finite) args.push_back("--check-finite");
  if (o.regather) args.push_back("--regather");
  return args;
}

void print_summary(const nlohmann::json& runs, const std::vector<JobFailure>& failures) {
  fmt::print("\n{:=<78}\nsummary\n", "");
  fmt::print("  {:<7} {:>3} {:>5} {:<9} {:<5} {:<6} {:>7} {:>9} {:>10} {:>10} {:>8}  {}\n",
             "scheme", "np", "hosts", "grid", "dtype", "check", "tensors", "max used", "max rel_l2",
             "kept KiB", "comm", "verdict");
  for (const auto& r : runs) {
    double used = 0, rel = 0;
    bool nonfinite = false;
    for (const auto& t : r["tensors"]) {
      const auto value = [&](const char* key) {
        return t[key].is_number() ? t[key].get<double>() : INFINITY;
      };
      used = std::max(used, value("tolerance_used"));
      nonfinite = nonfinite || t["nonfinite"].get<std::int64_t>() > 0;
      if (!t["max_rel_l2"].is_null()) rel = std::max(rel, value("rel_l2"));
    }
    fmt::print("  {:<7} {:>3} {:>5} {:<9} {:<5} {:<6} {:>7} {:>9} {:>10.2e} {:>10.1f} {:>8}  {}\n",
               r["scheme"].get<std::string>(), r["np"].get<int>(), r["hosts"].size(),
               r["grid"].get<std::string>(), r["dtype"].get<std::string>(),
               r["exact"].get<bool>() ? "exact" : "block", r["tensors"].size(),
               verify::tolerance_used_text(used, nonfinite), rel,
               r["saved_bytes"].get<double>() / 1024,
               r["comm_match"].get<bool>() ? "= model" : "differs",
               r["pass"].get<bool>() ? "PASS" : "FAIL");
  }
  for (const auto& f : failures) fmt::print("  {}\n", f.describe());
}

int drive(const VerifyOptions& o) {
  const BlockShape shape = parse_block_shape(o.shape);
  for (const auto& d : o.dtypes) parse_dtype(d);
  validate_backend(o);
  if (o.backend == "cuda") {
    const int gpus = cuda::visible_devices();  // NoDeviceError, saying why, when there is none
    fmt::print("cuda backend: {} GPU{} visible, --comm {}\n", gpus, gpus == 1 ? "" : "s", o.comm);
  }
  // Schemes named with --scheme must run at every --np; with every scheme implied, those that
  // cannot use a world size are left out of it, and only a world size none can use is refused.
  const bool every_scheme = o.schemes.empty() || o.schemes == std::vector<std::string>{"all"};
  for (int np : o.np) {
    if (np < 1) throw UsageError(fmt::format("a run needs at least one rank; got {}", np));
  }
  std::vector<Job> jobs;
  std::vector<std::string> skipped;
  for (const auto& name : chosen_schemes(o)) {
    const auto scheme = make_scheme(name, o.scheme_options(false));
    for (int np : o.np.empty() ? scheme->default_world_sizes() : o.np) {
      if (every_scheme && !o.np.empty() && !scheme->why_not(np, shape).empty()) {
        skipped.push_back(fmt::format("{} at np={}", name, np));
        continue;
      }
      scheme->validate(np, shape);
      jobs.push_back({name, np});
    }
  }
  if (jobs.empty()) {
    throw UsageError(fmt::format("no scheme can run {} on {} ranks; try --np 4 or --np 8",
                                 to_string(shape), fmt::join(o.np, ",")));
  }
  if (!skipped.empty()) {
    fmt::print("left out, as they cannot split this shape over that many ranks: {}\n",
               fmt::join(skipped, ", "));
  }
  if (o.json) require_writable_file(*o.json, "--json");
  require_room(o, shape, jobs);
  int most_ranks = 0;
  for (const Job& j : jobs) most_ranks = std::max(most_ranks, j.np);
  const LaunchSettings launch = launch_settings(o.timeout, o.hosts, most_ranks);
  std::size_t planned = 0;  // runs: every job runs the configurations of its scheme
  for (const Job& job : jobs) planned += configurations(o, job.label).size();
  const auto all_pass = [](const SeriesResult& s) {
    bool pass = !s.runs.empty();
    for (const auto& r : s.runs) pass = pass && r["pass"].get<bool>();
    return pass;
  };
  const SeriesResult series = run_series(
      jobs, [&](const Job& job, const std::string& json) { return child_arguments(o, job, json); },
      launch, "runs",
      [&](const SeriesResult& so_far) {
        if (o.json) {
          write_file_safely(
              *o.json,
              series_document("runs", so_far.runs, so_far, all_pass(so_far)).dump(2) + "\n",
              "--json");
        }
      });

  print_summary(series.runs, series.failures);
  const bool pass = all_pass(series) && series.failures.empty();
  // A pass says which paths it covers: --overlap off or on leaves the other one unchecked.
  const std::string unchecked =
      o.overlap == "both"
          ? ""
          : fmt::format("; with overlap {} only (--overlap both checks the {} path too)", o.overlap,
                        o.overlap == "on" ? "blocking" : "started");
  if (pass) {
    fmt::print(
        "\nALL PASS: {} runs, every tensor within tolerance of the reference and every rank's "
        "communication equal to the cost model's{}\n",
        series.runs.size(), unchecked);
  } else {
    const std::size_t missing = planned - std::min(planned, series.runs.size());
    std::size_t failed = missing;
    for (const auto& r : series.runs) failed += r["pass"].get<bool>() ? 0 : 1;
    const std::size_t ended = series.failures.size();
    fmt::print("\nFAILED: {} of {} runs failed{}\n", failed, planned,
               missing == 0
                   ? ""
                   : fmt::format(": {} of them left no result, as {} ended early (see "
                                 "the summary)",
                                 missing, ended == 1 ? "a job" : fmt::format("{} jobs", ended)));
  }
  if (series.usage_error) return kExitUsage;
  if (series.timed_out) return kTimedOut;
  return pass ? 0 : kExitFailed;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check every scheme against the single-device reference, tensor by tensor.\n"
      "Launches mpiexec itself; under mpiexec it runs that one world size.");
  cmd->add_option("--scheme", o->schemes,
                  "schemes to check: " + scheme_help_list() + " (default: all)")
      ->delimiter(',');
  cmd->footer(scheme_help_table());
  cmd->add_option("--np", o->np, "world sizes (default: each scheme's own list)")->delimiter(',');
  cmd->add_option("--dtype", o->dtypes, "f64, f32, bf16 (bf16 with --backend cuda)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--backend", o->backend,
                  "cpu (Eigen) or cuda (cuBLAS and tplab's kernels, one GPU per rank or shared)")
      ->capture_default_str();
  cmd->add_option("--comm", o->comm,
                  "with --backend cuda: nccl (one GPU per rank), mpi (staged through host memory, "
                  "so ranks may share a GPU), or auto (nccl when every rank has its own GPU)")
      ->capture_default_str();
  cmd->add_option("--shape", o->shape, "global shape b,s,h,heads")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of inputs and weights")
      ->check(seed_check())
      ->capture_default_str();
  cmd->add_flag("--exact", o->exact,
                "only the exact check: integer inputs through the linear layers, zero tolerance");
  cmd->add_flag("--check-finite", o->check_finite,
                "check every stage of the block for NaN or Inf and report the first that has one");
  cmd->add_option("--depth", o->depth,
                  "2.5D depth d (default: d = p/q^2 with the largest q that fits)");
  cmd->add_flag("--regather", o->regather,
                "3D: keep only the local shards from forward and gather X~ and W~ again in "
                "backward (less memory, more communication)");
  cmd->add_option("--overlap", o->overlap,
                  "on: start collectives early and compute while they run (the same "
                  "collectives, the same results within tolerance); both: every configuration "
                  "with overlap off and on")
      ->check(CLI::IsMember({"on", "off", "both"}))
      ->capture_default_str();
  cmd->add_option("--json", o->json,
                  "write the results as JSON, job by job as they finish (checked before anything "
                  "runs: a new or plain file in a folder of your own)");
  cmd->add_option("--timeout", o->timeout, "seconds before a launched job is ended")
      ->check(timeout_check())
      ->capture_default_str();
  add_hosts_option(*cmd, o->hosts);
  add_allow_many_ranks_flag(*cmd, o->allow_many_ranks);
  cmd->callback(
      [o, &exit_code] { exit_code = launched_by_mpi() ? verify_in_world(*o) : drive(*o); });
}

}  // namespace tplab::app
