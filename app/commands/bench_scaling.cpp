// `tplab bench scaling` and `tplab bench step`: the block's forward+backward step timed for
// each scheme and world size, in strong and weak scaling, with communication and memory; with
// --pp, the whole GPT's step through its pipeline stages (bench_pipeline.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>

#include "bench_commands.hpp"
#include "bench_comparisons.hpp"
#include "bench_pipeline.hpp"
#include "block_training_options.hpp"
#include "choice.hpp"
#include "core/error.hpp"
#include "device/ops/cpu_ops.hpp"
#include "harness.hpp"
#include "mesh/mesh_layout.hpp"
#include "mesh_options.hpp"
#include "mfu.hpp"
#include "mpi_command.hpp"
#include "option_effects.hpp"
#include "output_options.hpp"
#include "pipeline_timer.hpp"
#include "problem_options.hpp"
#include "process_resources.hpp"
#include "rank_cost.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "scheme_choice.hpp"
#include "step_timer.hpp"
#include "trace_option.hpp"
#include "trainer.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

/// Strong scaling keeps the global shape; weak scaling keeps each rank's work.
enum class ScalingMode { strong, weak, both };

/// The names --mode takes.
constexpr std::array<Named<ScalingMode>, 3> kScalingModeNames = {
    {{"strong", ScalingMode::strong}, {"weak", ScalingMode::weak}, {"both", ScalingMode::both}}};

struct ScalingOptions {
  std::vector<std::string> schemes;
  std::vector<int> np{};  ///< empty: default_np, D x S times as many ranks with --dp D --pp S
  std::vector<int> default_np{};
  ScalingMode mode = ScalingMode::both;
  std::optional<BlockShape> shape{};  ///< unset: default_shape
  /// One replica's shape (strong scaling; D times the batch with --dp D), or one rank's (weak).
  BlockShape default_shape;
  DType dtype = DType::f32;
  int warmup = 1;
  int repeats = 5;
  Overlap overlap = Overlap::off;
  std::vector<Comparison> compare{};
  /// --depth, --regather, --dp, --dp-buckets, --dropout, --dropout-seed and --recompute.
  SchemeOptions scheme{};
  std::optional<std::string> trace{};
  LaunchOptions launch{.json = {}, .timeout = 600, .hosts = {}, .allow_many_ranks = false};
  /// With --pp (1 included), every run is the GPT of `layers` blocks and `vocab` ids, cut into
  /// scheme.pp stages and scheme.micro_batches micro-batches, rather than one block.
  bool gpt = false;
  std::int64_t layers = 4;
  std::int64_t vocab = 1024;

  bool compares(Comparison c) const {
    return std::find(compare.begin(), compare.end(), c) != compare.end();
  }
};

/// The global shape of a run at `np` ranks. Strong scaling keeps the shape; weak scaling keeps
/// each rank's work: the batch grows with the ranks (b x p), and since every term of the step's
/// FLOPs (24 b s h^2 + 4 b s^2 h, times 3) is linear in b, each rank does as much as one rank did.
BlockShape shape_for(const ScalingOptions& o, ScalingMode mode, int np) {
  if (mode == ScalingMode::strong) return global_shape(o.shape, o.default_shape, o.scheme);
  BlockShape s = o.shape.value_or(o.default_shape);
  s.b *= np;
  return s;
}

std::vector<ScalingMode> modes_of(ScalingMode mode) {
  if (mode == ScalingMode::both) return {ScalingMode::strong, ScalingMode::weak};
  return {mode};
}

std::string mode_name(ScalingMode mode) {
  return std::string(name_in(kScalingModeNames, mode));
}

// ---- inside mpiexec: time one configuration on this world ------------------------------------

/// A rank of a run that was not oversubscribed got less than this share of a core: another
/// process was running, and the times are not the scheme's alone.
constexpr double kContendedShare = 0.9;

bool contended(const bench::StepTiming& t) {
  return !bench::oversubscribed(t.world_size) && t.cpu_share < kContendedShare;
}

/// The cost model's logical bytes of one rank's collectives in one block's step (forward +
/// backward).
double model_bytes_per_rank(const bench::StepTiming& t) {
  const model::RankCost cost = model::rank_cost(t.config.scheme, t.config.options, t.world_size,
                                                t.config.shape, Workload::block);
  return static_cast<double>(cost.comm.total().total_elements()) *
         static_cast<double>(dtype_size(t.config.dtype));
}

/// A run's record: the block's (the cost model's bytes beside the counted), or with `pipeline`
/// the pipelined GPT's (its stages besides).
nlohmann::json to_json(const bench::StepTiming& t, ScalingMode mode,
                       const bench::PipelineTiming* pipeline = nullptr) {
  const BlockShape& s = t.config.shape;
  nlohmann::json j = {
      {"scheme", t.config.scheme},
      {"workload", "block"},
      {"pp", 1},
      {"np", t.world_size},
      {"mode", mode_name(mode)},
      {"grid", t.grid},
      {"dtype", dtype_name(t.config.dtype)},
      {"shape", {{"b", s.b}, {"s", s.s}, {"h", s.h}, {"heads", s.heads}}},
      {"warmup", t.config.warmup},
      {"repeats", t.config.repeats},
      {"step_ms", t.step_seconds.median * 1e3},
      {"step_ms_min", t.step_seconds.min * 1e3},
      {"step_ms_max", t.step_seconds.max * 1e3},
      {"comm_ms", t.comm_seconds.median * 1e3},
      {"comm_ms_min", t.comm_seconds.min * 1e3},
      {"comm_ms_max", t.comm_seconds.max * 1e3},
      {"comm_least_ms", t.comm_seconds_least.median * 1e3},
      {"overlap", t.config.options.overlap},
      {"comm_exposed_ms", t.exposed_seconds.median * 1e3},
      {"comm_share", t.comm_share},
      {"dp", t.config.options.dp},
      {"dp_buckets", name_in(kGradientBucketNames, t.config.options.dp_buckets)},
      {"comm_ms_tp", t.scheme_comm_seconds.median * 1e3},
      {"comm_ms_dp", t.dp_comm_seconds.median * 1e3},
      {"comm_share_tp", t.scheme_comm_seconds.median / t.step_seconds.median},
      {"comm_share_dp", t.dp_comm_seconds.median / t.step_seconds.median},
      {"bytes_per_rank_tp",
       t.bytes_per_rank - t.dp_bytes_per_rank - (pipeline ? pipeline->pp_bytes_per_rank : 0)},
      {"bytes_per_rank_dp", t.dp_bytes_per_rank},
      {"bytes_per_rank", t.bytes_per_rank},
      {"bus_bytes_per_rank", t.bus_bytes_per_rank},
      {"model_bytes_per_rank",
       pipeline ? nlohmann::json() : nlohmann::json(model_bytes_per_rank(t))},
      {"flops", t.flops},
      {"gflops_per_s", t.gflops_per_second},
      {"tokens_per_s", t.tokens_per_second},
      {"peak_mem_bytes", t.peak_memory_bytes},
      {"peak_mem_source", t.peak_memory_from_start ? "VmHWM since the process started"
                                                   : "VmHWM while stepping (reset after setup)"},
      {"cpu_share", t.cpu_share},
      {"contended", contended(t)},
      {"cores", bench::available_cores()},
      {"oversubscribed", bench::oversubscribed(t.world_size)}};
  j.update(block_training_json(t.config.options.training));
  j["memory"] = verify::to_json(t.memory);
  if (pipeline) j.update(pipeline_fields(*pipeline));
  return j;
}

/// The step of `scheme` on `shape`, `replicas` data-parallel replicas and overlap as given.
bench::StepConfig config_of(const ScalingOptions& o, const std::string& scheme,
                            const BlockShape& shape, int replicas, bool overlap) {
  SchemeOptions options = o.scheme;
  options.dp = replicas;
  options.overlap = overlap;
  return {.scheme = scheme,
          .options = options,
          .shape = shape,
          .dtype = o.dtype,
          .warmup = o.warmup,
          .repeats = o.repeats};
}

/// The GPT of `scheme` on the global block `shape`, `replicas` replicas of `stages` stages and
/// overlap as given: a training's configuration, of which only the model and its data run.
train::TrainConfig gpt_config_of(const ScalingOptions& o, const std::string& scheme,
                                 const BlockShape& shape, int replicas, int stages, bool overlap) {
  train::TrainConfig config;
  config.scheme = scheme;
  config.options = o.scheme;
  config.options.dp = replicas;
  config.options.pp = stages;
  config.options.overlap = overlap;
  config.shape = {.block = shape, .vocab = o.vocab, .layers = o.layers};
  config.dtype = o.dtype;
  return config;
}

void print_run(const bench::StepTiming& t, ScalingMode mode) {
  const bench::StepConfig& config = t.config;
  fmt::print(
      "{} {} np={} {} {}: step {:.1f} ms (min {:.1f}, max {:.1f}), in collectives "
      "{:.1f} ms ({:.0f}%), {:.1f} GFLOP/s{}{}{}\n",
      config.scheme, mode_name(mode), t.world_size, dtype_name(config.dtype),
      to_string(config.shape), t.step_seconds.median * 1e3, t.step_seconds.min * 1e3,
      t.step_seconds.max * 1e3, t.comm_seconds.median * 1e3, t.comm_share * 100,
      t.gflops_per_second, config.options.overlap ? " (overlap on)" : "",
      bench::oversubscribed(t.world_size) ? " (oversubscribed)" : "",
      describe_block_training(config.options.training));
  const verify::MemoryBreakdown& m = t.memory;
  const auto mib = [](std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  fmt::print(
      "memory per rank (the largest, measured on the device; the model's in brackets): "
      "parameters {:.2f} MiB [{:.2f}], gradients {:.2f} [{:.2f}], kept for backward {:.2f} "
      "[{:.2f}]; allocator peak in a step {:.2f} MiB, process peak (VmHWM) {:.1f} MiB\n",
      mib(m.parameters.measured), mib(m.parameters.model.value_or(0)), mib(m.gradients.measured),
      mib(m.gradients.model.value_or(0)), mib(m.activations.measured),
      mib(m.activations.model.value_or(0)), mib(m.peak_allocated), mib(m.peak_resident));
}

WorldResult scaling_in_world(const ScalingOptions& o, World& w) {
  if (o.schemes.size() != 1 || o.np.size() != 1 || o.mode == ScalingMode::both ||
      o.overlap == Overlap::both) {
    throw UsageError(fmt::format(
        "under mpiexec, give one --scheme, one --mode, one --overlap and --np {} (the ranks "
        "started)",
        w.comm.size()));
  }
  // the launcher gives each job its global shape; by hand, the default of the mode
  const BlockShape shape = o.shape.value_or(shape_for(o, o.mode, w.comm.size()));
  if (o.gpt) {
    const bench::PipelineTiming t =
        bench::time_pipeline_step(w.comm, w.device,
                                  {.train = gpt_config_of(o, o.schemes[0], shape, o.scheme.dp,
                                                          o.scheme.pp, o.overlap == Overlap::on),
                                   .warmup = o.warmup,
                                   .repeats = o.repeats});
    nlohmann::json record = to_json(t.step, o.mode, &t);
    if (w.comm.rank() != 0) return WorldResult{};
    print_run(t.step, o.mode);
    print_pipeline_run(record);
    if (w.hosts.host_count() > 1) fmt::print("ranks on {}\n", w.hosts.summary());
    return {.records = nlohmann::json::array({record}), .pass = true};
  }
  const bench::StepConfig config =
      config_of(o, o.schemes[0], shape, o.scheme.dp, o.overlap == Overlap::on);
  const bench::StepTiming t = bench::time_step(w.comm, w.device, config);
  nlohmann::json record = to_json(t, o.mode);
  for (const ComparisonEntry& c : comparison_entries()) {
    if (o.compares(c.comparison)) record.update(c.measure(w, config));
  }
  if (w.comm.rank() != 0) return WorldResult{};
  print_run(t, o.mode);
  for (const ComparisonEntry& c : comparison_entries()) {
    if (o.compares(c.comparison)) c.print_run(record, config);
  }
  if (w.hosts.host_count() > 1) fmt::print("ranks on {}\n", w.hosts.summary());
  return {.records = nlohmann::json::array({record}), .pass = true};
}

// ---- outside mpiexec: one job per scheme, mode and world size; then efficiency --------------

/// One planned job.
struct Planned {
  std::string scheme;
  ScalingMode mode = ScalingMode::strong;
  int np = 1;
  BlockShape shape;
  int dp = 1;  ///< replicas; with --dp D, also the scheme alone on one replica's work (dp 1)
  bool overlap = false;
  /// Pipeline stages of the GPT (ScalingOptions::gpt); with --pp S > 1, also the GPT on one
  /// stage of np/S ranks.
  int pp = 1;

  bool operator==(const Planned&) const = default;
};

/// The run DP efficiency compares `run` (of D replicas) with: the scheme alone on one replica's
/// ranks and work, np/D ranks and b/D sequences (weak scaling's shape at np/D as well).
Planned data_parallel_baseline(const Planned& run) {
  return {.scheme = run.scheme,
          .mode = run.mode,
          .np = run.np / run.dp,
          .shape = replica_shape(run.shape, run.dp),
          .dp = 1,
          .overlap = run.overlap,
          .pp = run.pp};
}

/// The run PP efficiency compares `run` (of S stages) with: the same GPT, replicas and
/// micro-batches on one stage of np/S ranks.
Planned pipeline_baseline(const Planned& run) {
  Planned base = run;
  base.np = run.np / run.pp;
  base.pp = 1;
  return base;
}

/// Empty when `run` can run; otherwise why not: the scheme's rules on its block, or with the
/// GPT the training's (its stages, micro-batches, mesh and the scheme on one micro-batch).
std::string refusal(const ScalingOptions& o, const Planned& run) {
  if (!o.gpt) {
    SchemeOptions options = o.scheme;
    options.dp = run.dp;
    return make_scheme(run.scheme, options)->refusal(run.np, run.shape);
  }
  try {
    train::validate_training(run.np,
                             gpt_config_of(o, run.scheme, run.shape, run.dp, run.pp, run.overlap));
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

/// Adds `run` to `runs` if it can run; otherwise it is left out, with the reason.
bool add_if_runnable(const ScalingOptions& o, const Planned& run, std::vector<Planned>& runs,
                     std::vector<LeftOut>& left_out) {
  if (const std::string why = refusal(o, run); !why.empty()) {
    left_out.push_back(
        {fmt::format("{} {} np={} dp={}{} ({})", run.scheme, mode_name(run.mode), run.np, run.dp,
                     o.gpt ? fmt::format(" pp={}", run.pp) : "", to_string(run.shape)),
         why});
    return false;
  }
  if (std::find(runs.begin(), runs.end(), run) == runs.end()) runs.push_back(run);
  return true;
}

/// Refuses what no run can take: bf16 beside the f64/f32 reference.
void validate(const ScalingOptions& o) {
  if (o.dtype == DType::bf16) cpu::chosen_bf16_gemm_path();  // TPLAB_BF16_GEMM
  if (o.dtype == DType::bf16 && o.compares(Comparison::reference)) {
    throw UsageError(
        "--compare reference with --dtype bf16: the single-device Eigen reference computes in "
        "f64 or f32; time bf16 without it, or the reference in f32");
  }
}

/// The world sizes to run: --np, or the command's defaults, D x S times as many with --dp D
/// and --pp S.
std::vector<int> world_sizes(const ScalingOptions& o) {
  if (!o.np.empty()) return o.np;
  std::vector<int> sizes;
  for (int np : o.default_np) sizes.push_back(np * o.scheme.dp * o.scheme.pp);
  return sizes;
}

/// Every (scheme, mode, np, overlap) the scheme can run; the others are left out with the
/// reason, and a request none of whose runs can run is refused.
std::vector<Planned> plan_runs(const ScalingOptions& o, std::vector<LeftOut>& left_out) {
  validate(o);
  const int replicas = o.scheme.dp;
  std::vector<Planned> runs;
  for (const auto& name : chosen_schemes(o.schemes)) {
    for (const ScalingMode mode : modes_of(o.mode)) {
      for (int np : world_sizes(o)) {
        for (const bool overlap : overlap_settings(o.overlap)) {
          const Planned run{.scheme = name,
                            .mode = mode,
                            .np = np,
                            .shape = shape_for(o, mode, np),
                            .dp = replicas,
                            .overlap = overlap,
                            .pp = o.scheme.pp};
          if (!add_if_runnable(o, run, runs, left_out)) continue;
          if (replicas > 1) add_if_runnable(o, data_parallel_baseline(run), runs, left_out);
          if (run.pp > 1) add_if_runnable(o, pipeline_baseline(run), runs, left_out);
        }
      }
    }
  }
  if (runs.empty()) {
    std::vector<std::string> reasons;
    for (const LeftOut& l : left_out) reasons.push_back(l.run + ": " + l.why);
    throw UsageError(
        fmt::format("no scheme can run any of these world sizes with this shape:\n  {}",
                    fmt::join(reasons, "\n  ")));
  }
  return runs;
}

std::string shape_text(const nlohmann::json& s) {
  return fmt::format("{},{},{},{}", s["b"].get<int>(), s["s"].get<int>(), s["h"].get<int>(),
                     s["heads"].get<int>());
}

/// Adds efficiency to every run: against the run of the same scheme, mode, replicas, stages and
/// overlap with the fewest ranks, measured in this sweep. Strong: T_base base / (p T_p); weak:
/// T_base / T_p.
using SeriesKey = std::tuple<std::string, std::string, int, int, bool>;  // scheme, mode, dp, pp,
                                                                         // overlap

SeriesKey series_of(const nlohmann::json& r) {
  return {r["scheme"].get<std::string>(), r["mode"].get<std::string>(), r["dp"].get<int>(),
          r["pp"].get<int>(), r["overlap"].get<bool>()};
}

void add_efficiency(nlohmann::json& runs) {
  std::map<SeriesKey, const nlohmann::json*> base;
  for (const auto& r : runs) {
    const SeriesKey key = series_of(r);
    if (!base.contains(key) || r["np"].get<int>() < (*base[key])["np"].get<int>()) base[key] = &r;
  }
  std::map<SeriesKey, std::pair<int, double>> baseline;
  for (const auto& [key, r] : base)
    baseline[key] = {(*r)["np"].get<int>(), (*r)["step_ms"].get<double>()};
  for (auto& r : runs) {
    const auto [np0, t0] = baseline[series_of(r)];
    const int np = r["np"].get<int>();
    const double t = r["step_ms"].get<double>();
    r["baseline_np"] = np0;
    r["efficiency"] = r["mode"] == "strong" ? t0 * np0 / (t * np) : t0 / t;
  }
}

/// Adds DP efficiency to every run of D > 1 replicas: the step time of its baseline (the scheme
/// alone on np/D ranks and b/D sequences, data_parallel_baseline) over its own. Ideal is 1: D
/// replicas do D times the work in the same time, the DP all-reduce and nothing else added.
/// Every run says whether it is such a baseline.
void add_data_parallel_efficiency(nlohmann::json& runs) {
  for (auto& r : runs) r["dp_baseline"] = false;
  for (auto& r : runs) {
    const int replicas = r["dp"].get<int>();
    if (replicas == 1) continue;
    const nlohmann::json& s = r["shape"];
    const std::int64_t replica_b = s["b"].get<std::int64_t>() / replicas;
    for (auto& base : runs) {
      const nlohmann::json& bs = base["shape"];
      const bool same_work = bs["b"].get<std::int64_t>() == replica_b && bs["s"] == s["s"] &&
                             bs["h"] == s["h"] && bs["heads"] == s["heads"];
      if (base["dp"].get<int>() != 1 || base["scheme"] != r["scheme"] ||
          base["mode"] != r["mode"] || base["overlap"] != r["overlap"] || base["pp"] != r["pp"] ||
          base["workload"] != r["workload"] ||
          base["np"].get<int>() * replicas != r["np"].get<int>() || !same_work) {
        continue;
      }
      base["dp_baseline"] = true;
      r["dp_baseline_np"] = base["np"];
      r["dp_baseline_step_ms"] = base["step_ms"];
      r["dp_efficiency"] = base["step_ms"].get<double>() / r["step_ms"].get<double>();
    }
  }
}

/// What the table's columns mean, and the warnings its runs call for.
void print_legend(bool any_contended, bool any_oversubscribed, bool data_parallel, bool pipelined) {
  fmt::print(
      "\n  step: forward + backward, median of the repeats after warm-up, the slowest rank's.\n"
      "  eff: strong T(base) base / (p T(p)), weak T(base) / T(p), against the same scheme's run\n"
      "       (and dp) with the fewest ranks in this sweep. Weak scaling multiplies the batch by "
      "p.\n"
      "  dp: data-parallel replicas D; np counts every rank, D x the scheme's.\n"
      "  MiB/rank: logical bytes of a rank's collectives per step (the counters' N; bus bytes in\n"
      "       the JSON); model_bytes_per_rank in the JSON is the cost model's count of the same,\n"
      "       which verify checks to be exact.\n"
      "  peak MiB: a rank's peak resident memory while stepping (VmHWM, reset after setup).\n"
      "  cpu: the smallest share of a core any rank got while stepping (CPU time / wall time).\n"
      "  exposed communication: the slowest rank's time blocked in collectives (starting and\n"
      "       waiting for them), medians; with overlap, the part the computation did not hide.\n");
  if (data_parallel) {
    fmt::print(
        "  DP efficiency: T(the scheme alone on np/D ranks, b/D sequences) / T(D replicas on np\n"
        "       ranks, b sequences), both measured in this sweep: 1 when the replicas cost\n"
        "       nothing but their gradient all-reduce and that costs nothing. The time in\n"
        "       collectives splits into the scheme's groups and dp, each the slowest rank's.\n");
  }
  if (pipelined) {
    fmt::print(
        "  pp: pipeline stages S of the GPT (--layers blocks, --vocab ids; the step is every\n"
        "       micro-batch's forward and backward through every stage, and the gradient\n"
        "       reduction over dp); np counts every rank, D x S x the scheme's.\n"
        "  stages idle: each stage's share of the step not computing (the bubble, and waiting for\n"
        "       transfers), the mean of its ranks, median of the repeats; the formula is the\n"
        "       bubble's share (S - 1)/(M + S - 1) for both schedules.\n"
        "  PP efficiency: T(the GPT on one stage of np/S ranks) / (S x T(S stages on np ranks)),\n"
        "       both measured in this sweep, with the same M micro-batches: 1 - the formula\n"
        "       when the stages cost nothing but the bubble.\n");
  }
  if (any_contended) {
    fmt::print(
        "  contended: a rank got less than {:.0f}% of a core without oversubscription:\n"
        "       another process was running. Rerun those on a quiet machine.\n",
        kContendedShare * 100);
  }
  if (any_oversubscribed) {
    fmt::print(
        "  oversubscribed: more ranks than this machine's {} cores; they take turns on the\n"
        "       cores, so those times say more about the machine than about the scheme.\n",
        bench::available_cores());
  }
}

/// One line per run: the table's rows.
void print_rows(const nlohmann::json& runs) {
  fmt::print("\n{:=<152}\n", "");
  fmt::print(
      "  {:<6} {:<6} {:>3} {:>2} {:>2} {:<14} {:<16} {:>9} {:>17} {:>8} {:>6} {:>9} {:>8} {:>5} "
      "{:>9} {:>5} {:>9} {:>5}  {}\n",
      "scheme", "mode", "np", "dp", "pp", "grid", "shape b,s,h,n", "step ms", "(min - max)",
      "comm ms", "comm", "MiB/rank", "GFLOP/s", "MFU", "tokens/s", "eff", "peak MiB", "cpu", "");
  for (const auto& r : runs) {
    const bool over = r["oversubscribed"].get<bool>();
    fmt::print(
        "  {:<6} {:<6} {:>3} {:>2} {:>2} {:<14} {:<16} {:>9.1f} {:>17} {:>8.1f} {:>5.0f}% "
        "{:>9.2f} {:>8.1f} {:>4.1f}% {:>9.0f} {:>5.2f} {:>9.0f} {:>5.2f}  {}\n",
        r["scheme"].get<std::string>(), r["mode"].get<std::string>(), r["np"].get<int>(),
        r["dp"].get<int>(), r["pp"].get<int>(), r["grid"].get<std::string>(),
        shape_text(r["shape"]), r["step_ms"].get<double>(),
        fmt::format("({:.1f} - {:.1f})", r["step_ms_min"].get<double>(),
                    r["step_ms_max"].get<double>()),
        r["comm_ms"].get<double>(), r["comm_share"].get<double>() * 100,
        r["bytes_per_rank"].get<double>() / 0x1p20, r["gflops_per_s"].get<double>(),
        r["mfu"].get<double>() * 100, r["tokens_per_s"].get<double>(),
        r["efficiency"].get<double>(), r["peak_mem_bytes"].get<double>() / 0x1p20,
        r["cpu_share"].get<double>(),
        over ? "oversubscribed" : (r["contended"].get<bool>() ? "contended" : ""));
  }
}

/// The DP efficiency that sharing `cores` alone allows D replicas on `np` ranks: they take
/// np / min(np, cores) turns on the cores where their baseline's np/D ranks take
/// (np/D) / min(np/D, cores), so at best T(base) / T = min(np, cores) / (D min(np/D, cores)).
double sharing_cap(int np, int replicas, int cores) {
  return static_cast<double>(std::min(np, cores)) / (replicas * std::min(np / replicas, cores));
}

/// Each run of D > 1 replicas against the scheme alone on one replica's work, and its time in
/// collectives split into the scheme's groups and the DP groups.
void print_data_parallel_lines(const nlohmann::json& runs) {
  for (const auto& r : runs) {
    if (r["dp"].get<int>() == 1) continue;
    const double step = r["step_ms"].get<double>();
    fmt::print(
        "  {} {} np={} ({}): in collectives {:.1f} ms of the scheme ({:.0f}%), {:.1f} ms "
        "of dp ({:.0f}%, {:.2f} MiB/rank)",
        r["scheme"].get<std::string>(), r["mode"].get<std::string>(), r["np"].get<int>(),
        r["grid"].get<std::string>(), r["comm_ms_tp"].get<double>(),
        r["comm_share_tp"].get<double>() * 100, r["comm_ms_dp"].get<double>(),
        r["comm_share_dp"].get<double>() * 100, r["bytes_per_rank_dp"].get<double>() / 0x1p20);
    if (r.contains("dp_efficiency")) {
      fmt::print(
          "; DP efficiency {:.2f}: {:.1f} ms against {:.1f} ms for the scheme alone on {} "
          "rank{} and b/{}",
          r["dp_efficiency"].get<double>(), step, r["dp_baseline_step_ms"].get<double>(),
          r["dp_baseline_np"].get<int>(), r["dp_baseline_np"].get<int>() == 1 ? "" : "s",
          r["dp"].get<int>());
      if (r["oversubscribed"].get<bool>()) {
        fmt::print(" (sharing {} cores alone caps it at {:.2f})", r["cores"].get<int>(),
                   sharing_cap(r["np"].get<int>(), r["dp"].get<int>(), r["cores"].get<int>()));
      }
    }
    fmt::print("\n");
  }
}

bool any_of_runs(const nlohmann::json& runs, const char* field) {
  return std::any_of(runs.begin(), runs.end(),
                     [&](const nlohmann::json& r) { return r[field].get<bool>(); });
}

void print_table(const nlohmann::json& document, const ScalingOptions& o) {
  const nlohmann::json& runs = document["runs"];
  print_rows(runs);
  const nlohmann::json& peak = document["peak"];
  fmt::print(
      "  MFU: the step's model FLOPs (the cost model's count) per second over min(np, {}) cores\n"
      "       x {:.1f} GFLOP/s, one core's {} peak ({}; {})\n",
      peak["cores"].get<int>(), peak["flops_per_s_per_core"].get<double>() / 1e9,
      peak["dtype"].get<std::string>(), peak["path"].get<std::string>(),
      peak["source"].get<std::string>());
  for (const ComparisonEntry& c : comparison_entries()) {
    if (o.compares(c.comparison)) c.print_summary(runs);
  }
  print_data_parallel_lines(runs);
  print_pipeline_lines(runs);
  const bool data_parallel = std::any_of(
      runs.begin(), runs.end(), [](const nlohmann::json& r) { return r["dp"].get<int>() > 1; });
  print_legend(any_of_runs(runs, "contended"), any_of_runs(runs, "oversubscribed"), data_parallel,
               o.gpt);
}

/// The comparisons of the job of `p`: --compare's, less the reference where an earlier job of
/// the same scheme and mode times it already.
std::vector<Comparison> job_comparisons(
    const ScalingOptions& o, const Planned& p,
    std::map<std::pair<std::string, ScalingMode>, bool>& timed) {
  std::vector<Comparison> compare;
  if (o.gpt) return {Comparison::none};
  for (const Comparison c : o.compare) {
    if (c == Comparison::none || (c == Comparison::reference && timed[{p.scheme, p.mode}])) {
      continue;
    }
    compare.push_back(c);
  }
  if (o.compares(Comparison::reference)) timed[{p.scheme, p.mode}] = true;
  if (compare.empty()) compare.push_back(Comparison::none);
  return compare;
}

/// What one rank of the job of `p` allocates: its step with every module its comparisons build
/// at once, and the reference's whole problem where it is timed.
double job_bytes_per_rank(const ScalingOptions& o, const Planned& p,
                          const std::vector<Comparison>& compare) {
  if (o.gpt) {
    return bench::pipeline_step_bytes_per_rank(
        {.train = gpt_config_of(o, p.scheme, p.shape, p.dp, p.pp, p.overlap)});
  }
  int modules = 1;
  double reference = 0;
  for (const Comparison c : compare) {
    if (c == Comparison::none) continue;
    modules = std::max(modules, comparison_entry(c).modules);
    if (c == Comparison::reference) reference = verify::verify_bytes_per_rank(p.shape);
  }
  return bench::step_bytes_per_rank(config_of(o, p.scheme, p.shape, p.dp, p.overlap), p.np,
                                    modules) +
         reference;
}

/// One job per planned run. The reference runs once per scheme and mode, beside the run with
/// the fewest ranks, on rank 0 of that job.
void plan_jobs(const ScalingOptions& o, const std::vector<Planned>& planned, LaunchPlan& plan) {
  plan.tensors =
      "every rank draws the global inputs in f64, then keeps its shards, their gradients and its "
      "activations";
  plan.smaller = "a smaller --shape";
  std::map<std::pair<std::string, ScalingMode>, bool> timed;
  for (const auto& p : planned) {
    const std::vector<Comparison> compare = job_comparisons(o, p, timed);
    std::vector<std::string> compare_names;
    for (const Comparison c : compare) {
      compare_names.emplace_back(name_in(kComparisonNames, c));
    }
    JobPlan job{.label = fmt::format("{} {} scaling{}{}{}, {}", p.scheme, mode_name(p.mode),
                                     p.dp > 1 ? fmt::format(" dp={}", p.dp) : "",
                                     o.gpt ? fmt::format(" pp={}", p.pp) : "",
                                     p.overlap ? " overlap on" : "", to_string(p.shape)),
                .np = p.np,
                .overrides = {{"--scheme", {p.scheme}},
                              {"--mode", {mode_name(p.mode)}},
                              {"--shape", {shape_argument(p.shape)}},
                              {"--compare", compare_names},
                              {"--overlap", {p.overlap ? "on" : "off"}},
                              {"--dp", {std::to_string(p.dp)}}},
                .bytes_per_rank = job_bytes_per_rank(o, p, compare)};
    if (o.gpt) job.overrides.push_back({"--pp", {std::to_string(p.pp)}});
    plan.jobs.push_back(std::move(job));
  }
  plan_traces(plan, o.trace, o.launch.json);
}

/// Each run's model FLOPs utilisation (mfu.hpp).
void add_mfu(nlohmann::json& runs, const nlohmann::json& peak) {
  for (auto& r : runs) {
    r["mfu"] =
        model_flops_utilisation(r["gflops_per_s"].get<double>() * 1e9, r["np"].get<int>(), peak);
  }
}

/// Every job's runs with the efficiencies and the MFU the runs so far give.
nlohmann::json scaling_document(const SeriesResult& so_far, const nlohmann::json& peak) {
  nlohmann::json runs = so_far.runs;
  add_efficiency(runs);
  add_data_parallel_efficiency(runs);
  add_pipeline_efficiency(runs);
  add_mfu(runs, peak);
  nlohmann::json document = series_document("runs", runs, so_far, true);
  document["peak"] = peak;
  return document;
}

/// Refuses an option that changes none of the runs, with the reason (option_effects.hpp).
void refuse_unused_options(const CLI::App& command, const std::vector<Planned>& planned,
                           const ScalingOptions& o) {
  std::vector<PlannedRun> runs;
  for (const Planned& p : planned) {
    SchemeOptions options = o.scheme;
    options.dp = p.dp;
    options.pp = p.pp;
    runs.push_back({.scheme = p.scheme, .options = options});
  }
  refuse_without_effect(command, runs);
  if (o.gpt) {
    const CLI::Option* compare = command.get_option_no_throw("--compare");
    if (compare != nullptr && compare->count() > 0 && !o.compares(Comparison::none)) {
      throw UsageError(
          "--compare measures one block beside its steps; with --pp every run is the whole GPT "
          "(leave out --pp to compare the block's)");
    }
    return;
  }
  for (const char* option : {"--layers", "--vocab", "--micro-batches"}) {
    const CLI::Option* given = command.get_option_no_throw(option);
    if (given != nullptr && given->count() > 0) {
      throw UsageError(fmt::format(
          "{} has no effect here: it shapes the GPT, and without --pp every run is one block "
          "(give --pp S, --pp 1 for the GPT without a pipeline)",
          option));
    }
  }
}

int drive_scaling(const CLI::App& command, const ScalingOptions& o) {
  LaunchPlan plan;
  const std::vector<Planned> planned = plan_runs(o, plan.left_out);
  refuse_unused_options(command, planned, o);
  plan_jobs(o, planned, plan);
  const nlohmann::json peak = measured_peak(o.dtype);
  const auto document = [&peak](const SeriesResult& so_far) {
    return scaling_document(so_far, peak);
  };
  const SeriesResult series = launch_jobs(command, o.launch, plan, document);
  for (const auto& f : series.failures) fmt::print("{}\n", f.describe());
  if (!series.runs.empty()) print_table(document(series), o);
  return exit_code_of(series, !series.runs.empty());
}

/// The options `scaling` and `step` share.
void add_options(CLI::App& cmd, ScalingOptions& o) {
  add_scheme_option(cmd, o.schemes)->capture_default_str();
  add_np_option(
      cmd, o.np,
      fmt::format("{}, D x S times as many with --dp D --pp S", fmt::join(o.default_np, ",")));
  add_choice(cmd, "--mode", o.mode, kScalingModeNames,
             "strong (fixed global shape), weak (the batch grows with the ranks) or both");
  add_shape_option(cmd, o.shape,
                   fmt::format("{} for each replica; in weak scaling the shape at one rank",
                               shape_argument(o.default_shape)));
  add_dtype_option(cmd, o.dtype);
  add_warmup_option(cmd, o.warmup, "steps");
  add_repeats_option(cmd, o.repeats, "timed steps");
  add_scheme_build_options(cmd, o.scheme);
  add_overlap_option(cmd, o.overlap,
                     "both: each run with overlap off and on, as runs of their own");
  add_named_option(cmd, "--compare", o.compare, kComparisonNames,
                   "also measure, beside the steps: " + comparisons_help());
  add_mesh_options(cmd, o.scheme);
  add_pipeline_options(cmd, o.scheme);
  add_gpt_size_options(cmd, o.vocab, o.layers);
  add_block_training_options(cmd, o.scheme.training);
  add_trace_option(cmd, o.trace,
                   "every rank's timeline (operations, collectives, steps), one file per job: "
                   "FILE's stem, the job, its extension");
  add_launch_options(cmd, o.launch, "the runs (job by job, as they finish)");
}

/// Runs `o`'s sweep: each job launched as the command itself, `bench scaling` or `bench step`.
void add_runner(CLI::App& cmd, int& exit_code, const std::shared_ptr<ScalingOptions>& o) {
  const auto pipelined = [&cmd] { return cmd.get_option("--pp")->count() > 0; };
  run_over_mpi(
      cmd, exit_code,
      [o, pipelined] {
        o->gpt = pipelined();
        return run_in_world(WorldSetup::for_job(o->np, o->launch.json, o->trace),
                            [&](World& w) { return scaling_in_world(*o, w); });
      },
      [o, &cmd, pipelined] {
        o->gpt = pipelined();
        return drive_scaling(cmd, *o);
      });
}

}  // namespace

void add_bench_scaling_commands(CLI::App& bench, int& exit_code) {
  // Small enough that a sweep over every scheme at 1-8 ranks takes minutes on two cores;
  // every scheme can split it at 1, 2 (1D, 2.5D), 4 (1D, 2D, 2.5D) and 8 ranks (1D, 2.5D, 3D).
  auto scaling = std::make_shared<ScalingOptions>(ScalingOptions{
      .schemes = scheme_names(), .default_np = {1, 2, 4, 8}, .default_shape = {8, 128, 512, 8}});
  CLI::App* cmd = bench.add_subcommand(
      "scaling",
      "Strong and weak scaling of every scheme: step time, time in collectives, bytes and "
      "memory per rank, tokens/s and efficiency at each world size");
  add_options(*cmd, *scaling);
  add_runner(*cmd, exit_code, scaling);

  // `step` is the same measurement with the defaults of the performance goal: one scheme, the
  // block of b=4 s=256 h=1024 heads=16, strong scaling, overlap off and on compared.
  auto step = std::make_shared<ScalingOptions>(ScalingOptions{.schemes = {"1d"},
                                                              .default_np = {1},
                                                              .mode = ScalingMode::strong,
                                                              .default_shape = {4, 256, 1024, 16},
                                                              .compare = {Comparison::overlap}});
  CLI::App* step_cmd = bench.add_subcommand(
      "step",
      "Time one forward+backward step (median of repeats after warm-up) at each world size: "
      "bench scaling with one scheme, strong scaling and the performance goal's shape");
  add_options(*step_cmd, *step);
  add_runner(*step_cmd, exit_code, step);
}

}  // namespace tplab::app
