#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <optional>

#include "attention_scores.hpp"
#include "backend/cuda_backend.hpp"
#include "block_training_options.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "device/ops/cpu_ops.hpp"
#include "gpt_check.hpp"
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
#include "verify_gpt.hpp"
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

/// The GPT's vocabulary by default: a prime, so that every scheme that splits it over more than
/// one part pads it (to 68 at 2 and 4 parts, 69 at 3, 72 at 9), and its padded ids must take
/// no gradient.
constexpr std::int64_t kGptVocab = 67;
/// The GPT's blocks by default: two, so that a block's input is another block's output.
constexpr std::int64_t kGptLayers = 2;
/// The GPT's dropout by default, where --dropout is not given: its masks keyed by global place
/// must be the reference's on every mesh.
constexpr double kGptDropout = 0.1;

/// The meshes verify adds when --dp, --pp and --np are not given, each a job of `np` ranks, so
/// that no count is 2 in every run: D = 2 replicas of 1D and 1D with sequence parallelism at
/// t = 2 and of 2D at q = 2 (4, 4 and 8 ranks), the meshes on which a collective issued on the
/// wrong group shows (the TP and DP groups differ and neither is the world); D = 3 of both 1D
/// schemes at t = 2; S = 3 pipeline stages of both at t = 2, the whole GPT only (a block is one
/// layer), with 3 micro-batches and 3 layers, where a middle stage both receives and sends; and
/// 2.5D at depth 3 (q = 2, 12 ranks), beside its own depths 1 and 2, as a world size of its own.
struct DefaultMesh {
  std::string_view scheme;
  int np;
  int dp = 1;
  int pp = 1;
};
constexpr std::array<DefaultMesh, 8> kDefaultMeshes = {{{"1d", 4, 2},
                                                        {"1d-sp", 4, 2},
                                                        {"2d", 8, 2},
                                                        {"1d", 6, 3},
                                                        {"1d-sp", 6, 3},
                                                        {"1d", 6, 1, 3},
                                                        {"1d-sp", 6, 1, 3},
                                                        {"2.5d", 12}}};

/// verify's --help: what it checks, and which runs the default makes.
constexpr std::string_view kVerifyDescription =
    "Check every scheme against the single-device reference, tensor by tensor.\n"
    "Launches mpiexec itself; under mpiexec it runs that one world size.\n"
    "By default each scheme at each of its world sizes runs, in f64 and f32: the block (f64 "
    "with x ~ 20 + U[-1,1), where a one-pass LayerNorm variance fails) and the exact check, "
    "overlap off and on; the block with attention scores past exp's overflow point and dy = 0 "
    "(a softmax without its max-shift fails), overlap off; and where its token shards start "
    "mid-sequence (1d-sp, 3D), the block on the second shape below, overlap off and on. Then, in "
    "each dtype, one step of the whole GPT (embedding with positions, --layers blocks, final "
    "LayerNorm, vocabulary-parallel head and cross-entropy): its loss and every parameter's "
    "gradient against the reference, on the mid-sequence shape where the scheme cuts tokens "
    "there, with a vocabulary of --vocab ids that its parts pad, logits offset past exp's "
    "overflow point (f64, f32) and dropout 0.1 (or --dropout), overlap off and on. Without --dp, "
    "--pp and --np, "
    "also 1d and 1d-sp on 4 ranks and 2d on 8 as 2 data-parallel replicas, and 1d and 1d-sp on 6 "
    "as 3, overlap off and without the large scores (replicas change nothing before the "
    "gradients' reduction: the runs without them check the softmax); the GPT of 1d and 1d-sp on "
    "6 ranks as 3 pipeline stages of 3 layers, 3 micro-batches; and 2.5d on 12 (depth 3) as a "
    "world size of its own.";

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
  bool large_scores = true;    ///< the block with scores past exp's overflow point too
  bool gpt = true;             ///< the whole GPT too, one step per dtype
  bool dropout_given = false;  ///< --dropout given: the GPT drops as it says, 0 included
  std::int64_t vocab = kGptVocab;
  std::int64_t layers = kGptLayers;
  Overlap overlap = Overlap::both;
  /// --depth, --regather, --dp, --dp-buckets, --pp, --micro-batches, --schedule, --dropout,
  /// --dropout-seed, --dropout-keying and --recompute, as the parser stored them; overlap is set
  /// per configuration.
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
  if (o.scheme.pp > 1) return runs;  // a block is one layer: the pipeline cuts the GPT's
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

/// The GPT checks a launch of `world_size` ranks runs for `scheme` (none with --no-gpt or
/// --exact): one per dtype and overlap setting, on --shape, or else on kMidSequenceShape where the
/// scheme's token shards start mid-sequence there and on the main shape elsewhere; V = --vocab ids
/// (padded by the scheme's parts), --layers blocks, b_head offset to twice exp's overflow point in
/// f64 and f32 (unless --no-large-scores: every logit is then past it, and a log-sum-exp without
/// the shift by its row's maximum overflows), dropout --dropout (0 included) or kGptDropout.
std::vector<train::TrainConfig> gpt_configurations(const VerifyOptions& o,
                                                   const std::string& scheme, int world_size) {
  std::vector<train::TrainConfig> runs;
  if (!o.gpt || o.exact) return runs;
  const int replica_ranks = world_size / (o.scheme.dp * o.scheme.pp);
  VerifyOptions one_replica = o;
  one_replica.scheme.dp = 1;
  one_replica.scheme.pp = 1;
  const BlockShape mid = mid_sequence_shape(o);
  const bool mid_sequence =
      !o.shape && replica_ranks > 0 &&
      cuts_mid_sequence(one_replica, scheme, replica_ranks, parse_block_shape(kMidSequenceShape));
  for (const DType dtype : o.dtypes) {
    for (const bool with_overlap : overlap_settings(o.overlap)) {
      SchemeOptions options = o.scheme_options(with_overlap);
      if (!o.dropout_given) options.training.dropout.p = kGptDropout;
      runs.push_back({.scheme = scheme,
                      .options = options,
                      .shape = {mid_sequence ? mid : main_shape(o), o.vocab, o.layers},
                      .dtype = dtype,
                      .seed = o.seed,
                      .steps = 1,
                      .optimizer = {},
                      .clip = 0,
                      .logit_offset = o.large_scores && dtype != DType::bf16
                                          ? 2 * verify::exp_overflow_point(dtype)
                                          : 0.0});
    }
  }
  return runs;
}

// ---- inside mpiexec: run the configurations on this world ------------------------------------

WorldResult verify_in_world(const VerifyOptions& o, World& w) {
  validate_backend(o);
  std::vector<verify::RunConfig> runs;
  std::vector<train::TrainConfig> gpts;
  for (const auto& scheme : chosen_schemes(o.schemes)) {
    const auto c = configurations(o, scheme, w.comm.size());
    for (const auto& config : c)
      make_scheme(scheme, config.options)->validate(w.comm.size(), config.shape);
    runs.insert(runs.end(), c.begin(), c.end());
    const auto g = gpt_configurations(o, scheme, w.comm.size());
    for (const auto& config : g) train::validate_training(w.comm.size(), config);
    gpts.insert(gpts.end(), g.begin(), g.end());
  }
  if (w.comm.rank() == 0) fmt::print("ranks on {}\n", w.hosts.summary());
  WorldResult result;
  for (const auto& config : runs) {
    const verify::RunResult run = verify::run_verification(w.comm, w.device, config);
    if (w.comm.rank() == 0) verify::print_run(run, stdout);
    result.records.push_back(verify::to_json(run));
    result.pass = result.pass && run.pass;
  }
  const std::string backend =
      fmt::format("{}/{}", device_name(w.device.kind()), w.comm.transport());
  for (const auto& config : gpts) {
    const train::GptCheck check = train::check_gpt(w.comm, w.device, config);
    if (w.comm.rank() == 0) print_gpt_check(check, backend, stdout);
    result.records.push_back(gpt_check_json(check, backend));
    result.pass = result.pass && check.pass;
  }
  return result;
}

// ---- outside mpiexec: launch one job per scheme and world size, then summarise ---------------

/// Bytes one rank of a job of `scheme` on `np` ranks needs, about: the most of its block runs
/// on `shape` and its GPT checks.
double job_bytes_per_rank(const VerifyOptions& o, const std::string& scheme, int np,
                          const BlockShape& shape) {
  double bytes = o.scheme.pp > 1 ? 0.0 : verify::verify_bytes_per_rank(shape);
  for (const train::TrainConfig& c : gpt_configurations(o, scheme, np)) {
    bytes = std::max(bytes, train::training_bytes_per_rank(c));
  }
  return bytes;
}

/// The job of `scheme` on `np` ranks, as the caller's options say.
JobPlan verify_job(const VerifyOptions& o, const std::string& scheme, int np,
                   const BlockShape& shape) {
  return {.label = scheme,
          .np = np,
          .overrides = {{"--scheme", {scheme}}},
          .bytes_per_rank = job_bytes_per_rank(o, scheme, np, shape)};
}

/// The caller's options as the job runs them: its --dp, --pp, --micro-batches, --layers,
/// --shape, --overlap and --large-scores.
VerifyOptions job_options(const VerifyOptions& o, const JobPlan& job) {
  VerifyOptions in_job = o;
  for (const ArgumentOverride& a : job.overrides) {
    if (a.option == "--dp") in_job.scheme.dp = std::stoi(a.values.front());
    if (a.option == "--pp") in_job.scheme.pp = std::stoi(a.values.front());
    if (a.option == "--micro-batches") in_job.scheme.micro_batches = std::stoi(a.values.front());
    if (a.option == "--layers") in_job.layers = std::stoll(a.values.front());
    if (a.option == "--shape") in_job.shape = parse_block_shape(a.values.front());
    if (a.option == "--overlap") in_job.overlap = *value_in(kOverlapNames, a.values.front());
    if (a.option == "--large-scores") in_job.large_scores = a.values.front() != "false";
  }
  return in_job;
}

/// Why the GPT checks of `scheme` cannot run on `np` ranks, or empty when they can.
std::string why_not_gpt(const VerifyOptions& o, const std::string& scheme, int np) {
  try {
    for (const train::TrainConfig& c : gpt_configurations(o, scheme, np)) {
      train::validate_training(np, c);
    }
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

/// The default's meshes (kDefaultMeshes), for the schemes chosen that can run them on `shape`:
/// one job per mesh, running each of its schemes in turn (a launch costs more than the runs);
/// those of replicas or stages with overlap off and without the large scores and logits (they
/// check the softmax and the cross-entropy, which replicas and stages do not change; the GPT
/// runs there with logits near 0, the other regime).
void add_default_meshes(const VerifyOptions& o, const BlockShape& shape, LaunchPlan& plan) {
  const std::vector<std::string> chosen = chosen_schemes(o.schemes);
  std::map<std::tuple<int, int, int>, std::vector<std::string>> schemes_on;  // (np, D, S)
  for (const DefaultMesh& mesh : kDefaultMeshes) {
    if (std::find(chosen.begin(), chosen.end(), mesh.scheme) == chosen.end()) continue;
    if (mesh.pp > 1 && (!o.gpt || o.exact)) continue;
    VerifyOptions meshed = o;
    meshed.shape = shape;
    meshed.scheme.dp = mesh.dp;
    meshed.scheme.pp = mesh.pp;
    if (mesh.pp > 1) {
      meshed.scheme.micro_batches = mesh.pp;
      meshed.layers = mesh.pp;
    }
    const std::string scheme(mesh.scheme);
    const bool runs =
        mesh.pp > 1
            ? why_not_gpt(meshed, scheme, mesh.np).empty()
            : make_scheme(scheme, meshed.scheme_options(false))->why_not(mesh.np, shape).empty();
    if (runs) schemes_on[{mesh.np, mesh.dp, mesh.pp}].push_back(scheme);
  }
  for (const auto& [mesh, schemes] : schemes_on) {
    const auto [np, dp, pp] = mesh;
    const std::string names = fmt::format("{}", fmt::join(schemes, ","));
    std::string label = names;
    if (dp > 1) label += fmt::format(" dp={}", dp);
    if (pp > 1) label += fmt::format(" pp={}", pp);
    JobPlan job{.label = label,
                .np = np,
                .overrides = {{"--scheme", schemes}, {"--shape", {shape_argument(shape)}}}};
    if (dp > 1 || pp > 1) {
      job.overrides.push_back({"--overlap", {"off"}});
      job.overrides.push_back({"--large-scores", {"false"}});
    }
    if (dp > 1) job.overrides.push_back({"--dp", {std::to_string(dp)}});
    if (pp > 1) {
      for (const char* option : {"--pp", "--micro-batches", "--layers"}) {
        job.overrides.push_back({option, {std::to_string(pp)}});
      }
    }
    const VerifyOptions in_job = job_options(o, job);
    for (const std::string& scheme : schemes) {
      job.bytes_per_rank =
          std::max(job.bytes_per_rank, job_bytes_per_rank(in_job, scheme, np, shape));
    }
    plan.jobs.push_back(std::move(job));
  }
}

/// Why `scheme` cannot run `shape` on `np` ranks, or empty when it can: its own rules, and, for
/// a world size the defaults chose, the rank limit (launch_preflight.hpp) unless
/// --allow-many-ranks.
std::string why_not_run(const VerifyOptions& o, const Scheme& scheme, int np,
                        const BlockShape& shape) {
  // with stages, the GPT alone runs (a block is one layer)
  const std::string why =
      o.scheme.pp > 1 ? why_not_gpt(o, scheme.name(), np) : scheme.refusal(np, shape);
  if (!why.empty()) return why;
  if (o.np.empty() && !o.launch.allow_many_ranks && np > rank_limit()) {
    return fmt::format("{} ranks are more than {}, this machine's limit (--allow-many-ranks)", np,
                       rank_limit());
  }
  return {};
}

/// One job per scheme and world size. A scheme named with --scheme must run at every --np it is
/// given; runs the defaults chose (every scheme, or each scheme's own world sizes, D times as
/// many with --dp D) are left out, saying why, where they cannot run; a request that leaves
/// nothing to run is refused. Without --dp, --pp and --np, the default meshes besides.
LaunchPlan plan_jobs(const VerifyOptions& o, const BlockShape& shape, bool mesh_given) {
  const bool chosen_by_defaults = !names_schemes(o.schemes) || o.np.empty();
  LaunchPlan plan;
  plan.tensors = "every rank holds the whole problem and the reference's answer in f64";
  plan.smaller = o.gpt && !o.exact ? "a smaller --shape, --vocab or --layers (or --no-gpt)"
                                   : "a smaller --shape";
  for (const auto& name : chosen_schemes(o.schemes)) {
    const auto scheme = make_scheme(name, o.scheme_options(false));
    std::vector<int> sizes = o.np;
    if (sizes.empty()) {  // D times the scheme's own with --dp D, and S times that with --pp S
      for (int np : scheme->default_world_sizes()) sizes.push_back(np * o.scheme.pp);
    }
    for (int np : sizes) {
      const std::string why = why_not_run(o, *scheme, np, shape);
      if (why.empty()) {
        plan.jobs.push_back(verify_job(o, name, np, shape));
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
  if (!mesh_given && o.np.empty()) add_default_meshes(o, shape, plan);
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
        "\nALL PASS: {} runs, every tensor within tolerance of the reference, every rank's "
        "communication and kept bytes in the block and transfers between stages equal to the cost "
        "model's{}\n",
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

/// Every run of every job of a plan, as each job will make it.
struct PlannedRuns {
  std::vector<verify::RunConfig> blocks;  ///< the block's and the linear pair's
  std::vector<train::TrainConfig> gpts;   ///< the whole GPT's
  std::size_t size() const { return blocks.size() + gpts.size(); }
};

PlannedRuns planned_runs(const VerifyOptions& o, const LaunchPlan& plan) {
  PlannedRuns runs;
  for (const JobPlan& job : plan.jobs) {
    const VerifyOptions in_job = job_options(o, job);
    for (const std::string& scheme : job.overrides.front().values) {
      const auto c = configurations(in_job, scheme, job.np);
      runs.blocks.insert(runs.blocks.end(), c.begin(), c.end());
      const auto g = gpt_configurations(in_job, scheme, job.np);
      // refused here, before anything launches, as each job would refuse it
      for (const train::TrainConfig& config : g) train::validate_training(job.np, config);
      runs.gpts.insert(runs.gpts.end(), g.begin(), g.end());
    }
  }
  return runs;
}

/// One planned run as verify's own rules see it.
struct PlannedCheck {
  bool gpt = false;    ///< the whole GPT, or the block (or linear pair)
  bool exact = false;  ///< the linear pair on integers
  DType dtype = DType::f64;
};

constexpr std::string_view kNoGptRun =
    "it shapes the whole GPT's check, and no run here checks the GPT (it runs without --no-gpt "
    "and --exact)";

/// verify's own options that change some runs only.
constexpr std::array<EffectRule<PlannedCheck>, 6> kVerifyRules = {{
    {"--check-finite", [](const PlannedCheck& c) { return !c.gpt; },
     "it checks the block's stages for NaN or Inf, and every run here is the whole GPT (with --pp "
     "the GPT alone runs; its table names any tensor that holds one)"},
    {"--large-scores", [](const PlannedCheck& c) { return !c.exact && c.dtype != DType::bf16; },
     "the block with scores past exp's overflow point and the GPT with its logits past it run in "
     "f64 and f32, without --exact, and no run here is one"},
    {"--layers", [](const PlannedCheck& c) { return c.gpt; }, kNoGptRun},
    {"--vocab", [](const PlannedCheck& c) { return c.gpt; }, kNoGptRun},
    {"--micro-batches", [](const PlannedCheck& c) { return c.gpt; }, kNoGptRun},
    {"--pp", [](const PlannedCheck& c) { return c.gpt; },
     "a pipeline cuts the whole GPT into stages, and no run here checks the GPT (it runs "
     "without --no-gpt and --exact)"},
}};

/// Refuses an option that changes none of `runs`, with the reason (option_effects.hpp).
void refuse_unused_options(const CLI::App& command, const PlannedRuns& runs) {
  std::vector<PlannedRun> planned;
  std::vector<PlannedCheck> checks;
  for (const verify::RunConfig& c : runs.blocks) {
    planned.push_back({.scheme = c.scheme, .options = c.options, .block = !c.exact});
    checks.push_back({.gpt = false, .exact = c.exact, .dtype = c.dtype});
  }
  for (const train::TrainConfig& c : runs.gpts) {
    planned.push_back({.scheme = c.scheme, .options = c.options, .block = true});
    checks.push_back({.gpt = true, .exact = false, .dtype = c.dtype});
  }
  refuse_without_effect(command, std::span<const EffectRule<PlannedCheck>>(kVerifyRules), checks);
  refuse_without_effect(command, planned);
}

int drive(const CLI::App& command, const VerifyOptions& o) {
  const BlockShape shape = main_shape(o);
  validate_backend(o);
  if (o.backend == "cuda") {
    const int gpus = cuda::visible_devices();  // NoDeviceError, saying why, when there is none
    fmt::print("cuda backend: {} GPU{} visible, --comm {}\n", gpus, gpus == 1 ? "" : "s", o.comm);
  }
  const LaunchPlan plan =
      plan_jobs(o, shape, command.count("--dp") > 0 || command.count("--pp") > 0);
  const PlannedRuns runs = planned_runs(o, plan);
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
  add_np_option(*cmd, o->np,
                "each scheme's own list, D times as many ranks with --dp D, S times with --pp S");
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
                "also the block with attention scores and the GPT with logits past exp's overflow "
                "point (the default; "
                "--no-large-scores leaves it out)");
  cmd->add_flag("--gpt,!--no-gpt", o->gpt,
                "also one step of the whole GPT per dtype, its loss and every gradient (the "
                "default; --no-gpt leaves it out)");
  add_gpt_size_options(*cmd, o->vocab, o->layers);
  cmd->add_flag("--check-finite", o->check_finite,
                "check every stage of the block for NaN or Inf and report the first that has one");
  add_scheme_build_options(*cmd, o->scheme);
  add_overlap_option(*cmd, o->overlap, "both: every configuration with overlap off and on");
  add_mesh_options(*cmd, o->scheme);
  add_pipeline_options(*cmd, o->scheme);
  add_block_training_options(*cmd, o->scheme.training);
  add_dropout_keying_option(*cmd, o->scheme.training);
  add_launch_options(*cmd, o->launch, "the results (job by job, as they finish)");
  run_over_mpi(
      *cmd, exit_code,
      [o, cmd] {
        o->dropout_given = cmd->count("--dropout") > 0;
        WorldSetup setup = WorldSetup::for_job(o->np, o->launch.json);
        setup.backend = o->backend;
        setup.comm = o->comm;
        return run_in_world(setup, [&](World& w) { return verify_in_world(*o, w); });
      },
      [o, cmd] {
        o->dropout_given = cmd->count("--dropout") > 0;
        return drive(*cmd, *o);
      });
}

}  // namespace tplab::app
