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
#include "device/ops/cpu_ops.hpp"
#include "harness.hpp"
#include "launch_preflight.hpp"
#include "mesh_options.hpp"
#include "mpi_command.hpp"
#include "mpi_launch.hpp"
#include "option_effects.hpp"
#include "problem.hpp"
#include "problem_options.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "report.hpp"
#include "safe_output.hpp"
#include "scheme_choice.hpp"
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
  std::vector<DType> dtypes = {DType::f64, DType::f32};
  std::string backend = "cpu";
  std::string comm = "auto";
  std::optional<BlockShape> shape;  ///< unset: the default shapes
  std::uint64_t seed = 1;
  bool exact = false;
  bool check_finite = false;
  bool large_scores = true;  ///< the block with scores past exp's overflow point too
  Overlap overlap = Overlap::both;
  /// --depth, --regather, --dp, --dp-buckets, --dropout, --dropout-seed, --dropout-keying and
  /// --recompute, as the parser stored them; overlap is set per configuration.
  SchemeOptions scheme;
  LaunchOptions launch;

  SchemeOptions scheme_options(bool with_overlap) const {
    SchemeOptions options = scheme;
    options.overlap = with_overlap;
    return options;
  }
};

/// Refuses, before anything runs, a backend, communicator or dtype that cannot go together.
void validate_backend(const VerifyOptions& o) {
  validate_backend_choice(o.backend, o.comm);
  for (const DType d : o.dtypes) {
    if (d == DType::bf16 && o.backend == "cpu") cpu::chosen_bf16_gemm_path();
  }
  if (o.exact && o.dtypes == std::vector<DType>{DType::bf16}) {
    throw UsageError("--exact runs in f64 and f32: bf16 holds integers exactly only up to 256");
  }
}

/// The shape runs use: --shape, or kDefaultBlockShape for each replica.
BlockShape main_shape(const VerifyOptions& o) {
  return global_shape(o.shape, parse_block_shape(kDefaultBlockShape), o.scheme);
}

/// The second default shape, kMidSequenceShape for each replica.
BlockShape mid_sequence_shape(const VerifyOptions& o) {
  return global_shape(std::nullopt, parse_block_shape(kMidSequenceShape), o.scheme);
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
    runs.push_back({.scheme = scheme,
                    .options = o.scheme_options(with_overlap),
                    .shape = shape,
                    .dtype = dtype,
                    .seed = o.seed,
                    .exact = exact,
                    .check_finite = o.check_finite,
                    .shifted_input = shifted,
                    .large_scores = large_scores});
  };
  const BlockShape shape = main_shape(o);
  const std::vector<bool> overlaps = overlap_settings(o.overlap);
  for (const DType dtype : o.dtypes) {
    for (bool exact : {false, true}) {
      if ((o.exact && !exact) || (exact && dtype == DType::bf16)) continue;
      for (bool with_overlap : overlaps) add(shape, dtype, exact, false, with_overlap);
    }
    if (!o.exact && dtype != DType::bf16 && o.large_scores) {
      add(shape, dtype, false, true, overlaps.front());
    }
  }
  const BlockShape mid = mid_sequence_shape(o);
  if (!o.shape && !o.exact && cuts_mid_sequence(o, scheme, world_size, mid)) {
    for (const DType dtype : o.dtypes) {
      for (bool with_overlap : overlaps) add(mid, dtype, false, false, with_overlap);
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
  if (replicas != o.scheme.dp) {
    job.label = fmt::format("{} dp={}", scheme, replicas);
    job.overrides.push_back({"--dp", {std::to_string(replicas)}});
  }
  return job;
}

/// The caller's options as the job runs them: its --dp, --shape, --overlap and --large-scores.
VerifyOptions job_options(const VerifyOptions& o, const JobPlan& job) {
  VerifyOptions in_job = o;
  for (const ArgumentOverride& a : job.overrides) {
    if (a.option == "--dp") in_job.scheme.dp = std::stoi(a.values.front());
    if (a.option == "--shape") in_job.shape = parse_block_shape(a.values.front());
    if (a.option == "--overlap") in_job.overlap = *value_in(kOverlapNames, a.values.front());
    if (a.option == "--large-scores") in_job.large_scores = a.values.front() != "false";
  }
  return in_job;
}

/// The default's data-parallel jobs (kDefaultMeshes), for the schemes chosen that can run the
/// shape there: one job per world size, running each of its schemes in turn (a launch costs
/// more than the runs), with overlap off.
void add_default_meshes(const VerifyOptions& o, const BlockShape& shape, LaunchPlan& plan) {
  VerifyOptions meshed = o;
  meshed.scheme.dp = kDefaultReplicas;
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
    job.overrides.push_back({"--shape", {shape_argument(shape)}});
    // The replicas' reduction runs after backward either way: the started path is the
    // scheme's own, checked without replicas.
    job.overrides.push_back({"--overlap", {"off"}});
    job.overrides.push_back({"--large-scores", {"false"}});
    plan.jobs.push_back(std::move(job));
  }
}

/// Why `scheme` cannot run `shape` on `np` ranks, or empty when it can: its own rules, and, for
/// a world size the defaults chose, the rank limit (launch_preflight.hpp) unless
/// --allow-many-ranks.
std::string why_not_run(const VerifyOptions& o, const Scheme& scheme, int np,
                        const BlockShape& shape) {
  if (std::string why = scheme.refusal(np, shape); !why.empty()) return why;
  if (o.np.empty() && !o.launch.allow_many_ranks && np > rank_limit()) {
    return fmt::format("{} ranks are more than {}, this machine's limit (--allow-many-ranks)", np,
                       rank_limit());
  }
  return {};
}

/// One job per scheme and world size. A scheme named with --scheme must run at every --np it is
/// given; runs the defaults chose (every scheme, or each scheme's own world sizes, D times as
/// many with --dp D) are left out, saying why, where they cannot run; a request that leaves
/// nothing to run is refused. Without --dp and --np, the default meshes besides.
LaunchPlan plan_jobs(const VerifyOptions& o, const BlockShape& shape, bool dp_given) {
  const bool chosen_by_defaults = !names_schemes(o.schemes) || o.np.empty();
  LaunchPlan plan;
  plan.tensors = "every rank holds the whole problem and the reference's answer in f64";
  plan.smaller = "a smaller --shape";
  for (const auto& name : chosen_schemes(o.schemes)) {
    const auto scheme = make_scheme(name, o.scheme_options(false));
    for (int np : o.np.empty() ? scheme->default_world_sizes() : o.np) {
      const std::string why = why_not_run(o, *scheme, np, shape);
      if (why.empty()) {
        plan.jobs.push_back(verify_job(o, name, np, o.scheme.dp, shape));
      } else if (chosen_by_defaults) {
        plan.left_out.push_back({fmt::format("{} at np={}", name, np), why});
      } else {
        throw UsageError(why);
      }
    }
  }
  if (plan.jobs.empty()) {
    std::vector<std::string> reasons;
    for (const LeftOut& l : plan.left_out) reasons.push_back(l.run + ": " + l.why);
    throw UsageError(fmt::format("no scheme can run {} here:\n  {}", to_string(shape),
                                 fmt::join(reasons, "\n  ")));
  }
  if (!dp_given && o.np.empty()) add_default_meshes(o, shape, plan);
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
        o.overlap == Overlap::both
            ? ""
            : fmt::format("; with overlap {} only (--overlap both checks the {} path too)",
                          name_in(kOverlapNames, o.overlap),
                          o.overlap == Overlap::on ? "blocking" : "started");
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

/// Every run of every job of `plan`, as each job will make it.
std::vector<verify::RunConfig> planned_runs(const VerifyOptions& o, const LaunchPlan& plan) {
  std::vector<verify::RunConfig> runs;
  for (const JobPlan& job : plan.jobs) {
    for (const std::string& scheme : job.overrides.front().values) {
      const auto c = configurations(job_options(o, job), scheme, job.np);
      runs.insert(runs.end(), c.begin(), c.end());
    }
  }
  return runs;
}

/// verify's own options that change some runs only.
constexpr std::array<EffectRule<verify::RunConfig>, 1> kVerifyRules = {{
    {"--large-scores",
     [](const verify::RunConfig& c) { return !c.exact && c.dtype != DType::bf16; },
     "the block with scores past exp's overflow point runs in f64 and f32, without --exact, and "
     "no run here is one"},
}};

/// Refuses an option that changes none of `runs`, with the reason (option_effects.hpp).
void refuse_unused_options(const CLI::App& command, const std::vector<verify::RunConfig>& runs) {
  std::vector<PlannedRun> planned;
  for (const verify::RunConfig& c : runs) {
    planned.push_back({.scheme = c.scheme, .options = c.options, .block = !c.exact});
  }
  refuse_without_effect(command, planned);
  refuse_without_effect(command, std::span<const EffectRule<verify::RunConfig>>(kVerifyRules),
                        runs);
}

int drive(const CLI::App& command, const VerifyOptions& o) {
  const BlockShape shape = main_shape(o);
  validate_backend(o);
  if (o.backend == "cuda") {
    const int gpus = cuda::visible_devices();  // NoDeviceError, saying why, when there is none
    fmt::print("cuda backend: {} GPU{} visible, --comm {}\n", gpus, gpus == 1 ? "" : "s", o.comm);
  }
  const LaunchPlan plan = plan_jobs(o, shape, command.count("--dp") > 0);
  const std::vector<verify::RunConfig> runs = planned_runs(o, plan);
  refuse_unused_options(command, runs);
  const SeriesResult series = launch_jobs(command, o.launch, plan, [](const SeriesResult& s) {
    return series_document("runs", s.runs, s, all_pass(s));
  });
  verify::print_summary(series.runs, stdout);
  for (const auto& f : series.failures) fmt::print("  {}\n", f.describe());
  print_verdict(o, series, runs.size());
  return exit_code_of(series, all_pass(series));
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand("verify", std::string(kVerifyDescription));
  add_scheme_option(*cmd, o->schemes);
  add_np_option(*cmd, o->np, "each scheme's own list, D times as many ranks with --dp D");
  add_dtype_option(*cmd, o->dtypes, "; each in turn");
  cmd->add_option("--backend", o->backend,
                  "cpu (Eigen) or cuda (cuBLAS and tplab's kernels, one GPU per rank or shared)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--comm", o->comm,
                  "with --backend cuda: nccl (one GPU per rank), mpi (staged through host memory, "
                  "so ranks may share a GPU), or auto (nccl when every rank has its own GPU)")
      ->check(CLI::IsMember({"auto", "mpi", "nccl"}))
      ->capture_default_str();
  add_shape_option(*cmd, o->shape,
                   fmt::format("{} for each replica, and {} for the schemes and world sizes "
                               "whose token shards start mid-sequence there",
                               kDefaultBlockShape, kMidSequenceShape));
  add_seed_option(*cmd, o->seed, "the inputs and weights");
  cmd->add_flag("--exact", o->exact,
                "only the exact check: integer inputs through the linear layers, zero tolerance");
  cmd->add_flag("--large-scores,!--no-large-scores", o->large_scores,
                "also the block with attention scores past exp's overflow point (the default; "
                "--no-large-scores leaves it out)");
  cmd->add_flag("--check-finite", o->check_finite,
                "check every stage of the block for NaN or Inf and report the first that has one");
  add_scheme_build_options(*cmd, o->scheme);
  add_overlap_option(*cmd, o->overlap, "both: every configuration with overlap off and on");
  add_mesh_options(*cmd, o->scheme);
  add_block_training_options(*cmd, o->scheme.training);
  add_dropout_keying_option(*cmd, o->scheme.training);
  add_launch_options(*cmd, o->launch, "the results (job by job, as they finish)");
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
