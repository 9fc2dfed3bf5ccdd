#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <optional>

#include "backend/cuda_backend.hpp"
#include "block_training_options.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "data_parallel_options.hpp"
#include "device/ops/cpu_ops.hpp"
#include "harness.hpp"
#include "mpi_command.hpp"
#include "mpi_launch.hpp"
#include "option_checks.hpp"
#include "problem.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "report.hpp"
#include "safe_output.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

/// A shape every scheme can use at its default world sizes: a batch of 12 sequences and 12
/// heads divide by 1, 2, 3 and 4 (whole sequences and heads per rank); 72 tokens and hidden 72
/// divide by 4 and 9 (3D's q^2 at q = 2 and 3; at q = 3 a rank's 8 tokens cut 6-token
/// sequences, which 3D's attention handles by gathering keys and values).
constexpr std::string_view kDefaultBlockShape = "12,6,72,12";
/// A shape whose token shards start mid-sequence wherever a scheme cuts tokens: 3 sequences of
/// 12 make 36 tokens, 18 and 9 a rank for 1d-sp at 2 and 4 ranks, blocks of 9 for 3D at q = 2
/// and of 4, shorter than a sequence and three inside each, at q = 3. (2D and 2.5D give each
/// mesh row whole sequences, as their attention needs, so no shape cuts theirs.)
constexpr std::string_view kMidSequenceShape = "3,12,72,12";

/// The data-parallel jobs verify adds when --dp and --np are not given: D = 2 replicas of 1D and
/// 1D with sequence parallelism at t = 2 and of 2D at q = 2 (4, 4 and 8 ranks), the meshes on
/// which a collective issued on the wrong group shows (the TP and DP groups differ and neither
/// is the world).
struct DefaultMesh {
  std::string_view scheme;
  int np;
};
constexpr std::array<DefaultMesh, 3> kDefaultMeshes = {{{"1d", 4}, {"1d-sp", 4}, {"2d", 8}}};
constexpr int kDefaultReplicas = 2;

/// verify's --help: what it checks, and which runs the default makes.
constexpr std::string_view kVerifyDescription =
    "Check every scheme against the single-device reference, tensor by tensor.\n"
    "Launches mpiexec itself; under mpiexec it runs that one world size.\n"
    "By default each scheme at each of its world sizes runs, in f64 and f32: the block (f64 "
    "with x ~ 20 + U[-1,1), where a one-pass LayerNorm variance fails) and the exact check, "
    "overlap off and on; the block with attention scores past exp's overflow point and dy = 0 "
    "(a softmax without its max-shift fails), overlap off; and where its token shards start "
    "mid-sequence (1d-sp, 3D), the block on the second shape below, overlap off and on. Without "
    "--dp and "
    "--np, also 1d and 1d-sp on 4 ranks and 2d on 8 as 2 data-parallel replicas (--dp 2), overlap "
    "off, without the large scores (replicas change nothing before the gradients' reduction: "
    "the runs without them check the softmax).";

struct VerifyOptions {
  std::vector<std::string> schemes;
  std::vector<int> np;
  std::vector<std::string> dtypes = {"f64", "f32"};
  std::string backend = "cpu";
  std::string comm = "auto";
  std::string shape;  ///< empty: the default shapes
  std::uint64_t seed = 1;
  bool exact = false;
  bool check_finite = false;
  bool large_scores = true;  ///< the block with scores past exp's overflow point too
  int depth = 0;
  bool regather = false;
  std::string overlap = "both";
  DataParallelOptions data_parallel;
  BlockTrainingOptions training;
  LaunchOptions launch;

  SchemeOptions scheme_options(bool with_overlap) const {
    return training.applied_to(data_parallel.applied_to({depth, regather, with_overlap}));
  }
  /// The overlap settings each configuration runs with: off, on, or both (the default).
  std::vector<bool> overlaps() const {
    if (overlap == "both") return {false, true};
    return {overlap == "on"};
  }
};

/// Refuses, before anything runs, a backend, communicator or dtype that cannot go together.
void validate_backend(const VerifyOptions& o) {
  validate_backend_choice(o.backend, o.comm);
  for (const auto& d : o.dtypes) {
    if (parse_dtype(d) == DType::bf16 && o.backend == "cpu") cpu::chosen_bf16_gemm_path();
  }
  if (o.exact && o.dtypes == std::vector<std::string>{"bf16"}) {
    throw UsageError("--exact runs in f64 and f32: bf16 holds integers exactly only up to 256");
  }
}

/// The shape runs use: --shape, or kDefaultBlockShape.
BlockShape main_shape(const VerifyOptions& o) {
  return parse_block_shape(o.shape.empty() ? kDefaultBlockShape : o.shape);
}

/// True when some rank's token shard of x starts inside a sequence.
bool cuts_mid_sequence(const VerifyOptions& o, const std::string& scheme, int world_size,
                       const BlockShape& shape) {
  const auto s = make_scheme(scheme, o.scheme_options(false));
  if (!s->why_not(world_size, shape).empty()) return false;
  const auto placements = s->placements(world_size, shape, Workload::block);
  for (const BlockRange& b : find_placement(placements, "x").blocks) {
    if (b.row0 % shape.s != 0) return true;
  }
  return false;
}

/// The configurations one launch of `world_size` ranks runs. At the main shape, every dtype:
/// the block and the exact linear pair (or the exact one alone with --exact), each with overlap
/// off and on (or as --overlap says), and the block with attention scores past exp's overflow
/// point (RunConfig::large_scores; f64 and f32, with the first overlap setting only: the
/// softmax is the same code either way; left out with --no-large-scores). bf16 has no exact run: it
/// holds integers exactly only up to 256, and the exact check's sums are larger. The f64 block
/// draws x around a large common offset (Values::shifted) when h >= kShiftedInputMinHidden: f64's
/// tolerance is tight enough to see a LayerNorm whose variance cancels there, while f32 keeps the
/// centred inputs its tolerance was measured with. Without --shape, where this scheme's token
/// shards start mid-sequence on kMidSequenceShape, the block there too, every dtype and overlap.
std::vector<verify::RunConfig> configurations(const VerifyOptions& o, const std::string& scheme,
                                              int world_size) {
  std::vector<verify::RunConfig> runs;
  const auto add = [&](const BlockShape& shape, DType dtype, bool exact, bool large_scores,
                       bool with_overlap) {
    const bool shifted =
        dtype == DType::f64 && !exact && !large_scores && shape.h >= verify::kShiftedInputMinHidden;
    runs.push_back({scheme, o.scheme_options(with_overlap), shape, dtype, o.seed, exact,
                    o.check_finite, shifted, large_scores});
  };
  const BlockShape shape = main_shape(o);
  for (const auto& d : o.dtypes) {
    const DType dtype = parse_dtype(d);
    for (bool exact : {false, true}) {
      if ((o.exact && !exact) || (exact && dtype == DType::bf16)) continue;
      for (bool with_overlap : o.overlaps()) add(shape, dtype, exact, false, with_overlap);
    }
    if (!o.exact && dtype != DType::bf16 && o.large_scores) {
      add(shape, dtype, false, true, o.overlaps().front());
    }
  }
  const BlockShape mid = parse_block_shape(kMidSequenceShape);
  if (o.shape.empty() && !o.exact && cuts_mid_sequence(o, scheme, world_size, mid)) {
    for (const auto& d : o.dtypes) {
      for (bool with_overlap : o.overlaps()) add(mid, parse_dtype(d), false, false, with_overlap);
    }
  }
  return runs;
}

// ---- inside mpiexec: run the configurations on this world ------------------------------------

WorldResult verify_in_world(const VerifyOptions& o, World& w) {
  validate_backend(o);
  std::vector<verify::RunConfig> runs;
  for (const auto& scheme : chosen_schemes(o.schemes)) {
    const auto c = configurations(o, scheme, w.comm.size());
    for (const auto& config : c)
      make_scheme(scheme, config.options)->validate(w.comm.size(), config.shape);
    runs.insert(runs.end(), c.begin(), c.end());
  }
  if (w.comm.rank() == 0) fmt::print("ranks on {}\n", w.hosts.summary());
  WorldResult result;
  for (const auto& config : runs) {
    const verify::RunResult run = verify::run_verification(w.comm, w.device, config);
    if (w.comm.rank() == 0) verify::print_run(run, stdout);
    result.records.push_back(verify::to_json(run));
    result.pass = result.pass && run.pass;
  }
  return result;
}

// ---- outside mpiexec: launch one job per scheme and world size, then summarise ---------------

/// The job of `scheme` on `np` ranks, with `replicas` data-parallel replicas when that is not
/// what the caller's --dp says already.
JobPlan verify_job(const VerifyOptions& o, const std::string& scheme, int np, int replicas,
                   const BlockShape& shape) {
  JobPlan job{.label = scheme,
              .np = np,
              .overrides = {{"--scheme", {scheme}}},
              .bytes_per_rank = verify::verify_bytes_per_rank(shape)};
  if (replicas != o.data_parallel.dp) {
    job.label = fmt::format("{} dp={}", scheme, replicas);
    job.overrides.push_back({"--dp", {std::to_string(replicas)}});
  }
  return job;
}

/// The caller's options as the job runs them: its --dp, --overlap and --large-scores.
VerifyOptions job_options(const VerifyOptions& o, const JobPlan& job) {
  VerifyOptions in_job = o;
  for (const ArgumentOverride& a : job.overrides) {
    if (a.option == "--dp") in_job.data_parallel.dp = std::stoi(a.values.front());
    if (a.option == "--overlap") in_job.overlap = a.values.front();
    if (a.option == "--large-scores") in_job.large_scores = a.values.front() != "false";
  }
  return in_job;
}

/// The default's data-parallel jobs (kDefaultMeshes), for the schemes chosen that can run the
/// shape there: one job per world size, running each of its schemes in turn (a launch costs
/// more than the runs), with overlap off.
void add_default_meshes(const VerifyOptions& o, const BlockShape& shape, LaunchPlan& plan) {
  VerifyOptions meshed = o;
  meshed.data_parallel.dp = kDefaultReplicas;
  const std::vector<std::string> chosen = chosen_schemes(o.schemes);
  std::map<int, std::vector<std::string>> schemes_at;
  for (const DefaultMesh& mesh : kDefaultMeshes) {
    if (std::find(chosen.begin(), chosen.end(), mesh.scheme) == chosen.end()) continue;
    const auto scheme = make_scheme(mesh.scheme, meshed.scheme_options(false));
    if (scheme->why_not(mesh.np, shape).empty()) {
      schemes_at[mesh.np].emplace_back(mesh.scheme);
    }
  }
  for (const auto& [np, schemes] : schemes_at) {
    JobPlan job =
        verify_job(o, fmt::format("{}", fmt::join(schemes, ",")), np, kDefaultReplicas, shape);
    job.overrides.front().values = schemes;
    // The replicas' reduction runs after backward either way: the started path is the
    // scheme's own, checked without replicas.
    job.overrides.push_back({"--overlap", {"off"}});
    job.overrides.push_back({"--large-scores", {"false"}});
    plan.jobs.push_back(std::move(job));
  }
}

/// One job per scheme and world size: a scheme named with --scheme must run at every --np;
/// with every scheme implied, those that cannot use a world size are left out of it, and only
/// a world size none can use is refused. Without --dp and --np, the default meshes besides.
LaunchPlan plan_jobs(const VerifyOptions& o, const BlockShape& shape, bool dp_given) {
  const bool every_scheme = !names_schemes(o.schemes);
  for (int np : o.np) {
    if (np < 1) throw UsageError(fmt::format("a run needs at least one rank; got {}", np));
  }
  LaunchPlan plan;
  plan.tensors = "every rank holds the whole problem and the reference's answer in f64";
  plan.smaller = "a smaller --shape";
  std::vector<std::string> skipped;
  for (const auto& name : chosen_schemes(o.schemes)) {
    const auto scheme = make_scheme(name, o.scheme_options(false));
    for (int np : o.np.empty() ? scheme->default_world_sizes() : o.np) {
      if (every_scheme && !o.np.empty() && !scheme->why_not(np, shape).empty()) {
        skipped.push_back(fmt::format("{} at np={}", name, np));
        continue;
      }
      scheme->validate(np, shape);
      plan.jobs.push_back(verify_job(o, name, np, o.data_parallel.dp, shape));
    }
  }
  if (plan.jobs.empty()) {
    throw UsageError(fmt::format("no scheme can run {} on {} ranks; try --np 4 or --np 8",
                                 to_string(shape), fmt::join(o.np, ",")));
  }
  if (!dp_given && o.np.empty()) add_default_meshes(o, shape, plan);
  if (!skipped.empty()) {
    fmt::print("left out, as they cannot split this shape over that many ranks: {}\n",
               fmt::join(skipped, ", "));
  }
  return plan;
}

bool all_pass(const SeriesResult& s) {
  bool pass = !s.runs.empty();
  for (const auto& r : s.runs) pass = pass && r["pass"].get<bool>();
  return pass;
}

/// ALL PASS, saying which paths it covers (--overlap off or on leaves the other one
/// unchecked), or FAILED with the runs that failed or left no result.
void print_verdict(const VerifyOptions& o, const SeriesResult& series, std::size_t planned) {
  if (all_pass(series) && series.failures.empty()) {
    const std::string unchecked =
        o.overlap == "both"
            ? ""
            : fmt::format("; with overlap {} only (--overlap both checks the {} path too)",
                          o.overlap, o.overlap == "on" ? "blocking" : "started");
    fmt::print(
        "\nALL PASS: {} runs, every tensor within tolerance of the reference and every rank's "
        "communication and kept bytes equal to the cost model's{}\n",
        series.runs.size(), unchecked);
    return;
  }
  const std::size_t missing = planned - std::min(planned, series.runs.size());
  std::size_t failed = missing;
  for (const auto& r : series.runs) failed += r["pass"].get<bool>() ? 0 : 1;
  const std::size_t ended = series.failures.size();
  const auto jobs = [](std::size_t n) {
    return n == 1 ? std::string("a job") : fmt::format("{} jobs", n);
  };
  std::string why;
  if (missing > 0) {
    why = fmt::format(": {} of them left no result, as {} ended early (see the summary)", missing,
                      jobs(ended));
  } else if (ended > 0) {
    why = fmt::format("; {} failed besides (see the summary)", jobs(ended));
  }
  fmt::print("\nFAILED: {} of {} runs failed{}\n", failed, planned, why);
}

int drive(const CLI::App& command, const VerifyOptions& o) {
  const BlockShape shape = main_shape(o);
  validate_backend(o);
  if (o.backend == "cuda") {
    const int gpus = cuda::visible_devices();  // NoDeviceError, saying why, when there is none
    fmt::print("cuda backend: {} GPU{} visible, --comm {}\n", gpus, gpus == 1 ? "" : "s", o.comm);
  }
  const LaunchPlan plan = plan_jobs(o, shape, command.count("--dp") > 0);
  std::size_t planned = 0;  // runs: every job runs the configurations of its scheme
  for (const JobPlan& job : plan.jobs) {
    for (const std::string& scheme : job.overrides.front().values) {
      planned += configurations(job_options(o, job), scheme, job.np).size();
    }
  }
  const SeriesResult series = launch_jobs(command, o.launch, plan, [](const SeriesResult& s) {
    return series_document("runs", s.runs, s, all_pass(s));
  });
  verify::print_summary(series.runs, stdout);
  for (const auto& f : series.failures) fmt::print("  {}\n", f.describe());
  print_verdict(o, series, planned);
  return exit_code_of(series, all_pass(series));
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand("verify", std::string(kVerifyDescription));
  cmd->add_option("--scheme", o->schemes,
                  "schemes to check: " + scheme_help_list() + " (default: all)")
      ->delimiter(',');
  cmd->footer(scheme_help_table());
  cmd->add_option("--np", o->np, "world sizes (default: each scheme's own list)")->delimiter(',');
  cmd->add_option("--dtype", o->dtypes, "f64, f32, bf16 (bf16: stored in bf16, computed in f32)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--backend", o->backend,
                  "cpu (Eigen) or cuda (cuBLAS and tplab's kernels, one GPU per rank or shared)")
      ->capture_default_str();
  cmd->add_option("--comm", o->comm,
                  "with --backend cuda: nccl (one GPU per rank), mpi (staged through host memory, "
                  "so ranks may share a GPU), or auto (nccl when every rank has its own GPU)")
      ->capture_default_str();
  cmd->add_option("--shape", o->shape,
                  fmt::format("global shape b,s,h,heads (default: {}, and {} for the schemes and "
                              "world sizes whose token shards start mid-sequence there)",
                              kDefaultBlockShape, kMidSequenceShape));
  cmd->add_option("--seed", o->seed, "seed of inputs and weights")
      ->check(seed_check())
      ->capture_default_str();
  cmd->add_flag("--exact", o->exact,
                "only the exact check: integer inputs through the linear layers, zero tolerance");
  cmd->add_flag("--large-scores,!--no-large-scores", o->large_scores,
                "also the block with attention scores past exp's overflow point (the default; "
                "--no-large-scores leaves it out)");
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
  add_data_parallel_options(*cmd, o->data_parallel);
  add_block_training_options(*cmd, o->training);
  add_launch_options(*cmd, o->launch,
                     "write the results as JSON, job by job as they finish (checked before "
                     "anything runs: a new or plain file in a folder of your own)");
  run_over_mpi(
      *cmd, exit_code,
      [o] {
        WorldSetup setup = WorldSetup::for_job(o->np, o->launch.json);
        setup.backend = o->backend;
        setup.comm = o->comm;
        return run_in_world(setup, [&](World& w) { return verify_in_world(*o, w); });
      },
      [o, cmd] { return drive(*cmd, *o); });
}

}  // namespace tplab::app
