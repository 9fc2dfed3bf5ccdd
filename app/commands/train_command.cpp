/// @file
/// tplab train: the tiny GPT trained on one scheme beside the single-device reference.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <vector>

#include "attention_scores.hpp"
#include "block_training_options.hpp"
#include "choice.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "device/ops/cpu_ops.hpp"
#include "loss_tolerance.hpp"
#include "mesh/mesh_layout.hpp"
#include "mesh_options.hpp"
#include "mfu.hpp"
#include "mpi_command.hpp"
#include "option_effects.hpp"
#include "output_options.hpp"
#include "pipeline/stage_actions.hpp"
#include "problem_options.hpp"
#include "process_resources.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "scheme_choice.hpp"
#include "trace_option.hpp"
#include "trainer.hpp"
#include "update_audit.hpp"
#include "value_checks.hpp"
#include "world_run.hpp"

namespace tplab::app {
namespace {

/// Every scheme can split the default at its default world size: 4 sequences and 4 heads
/// divide by 2 (1D's t, 2D's and 3D's q) and 4 (2.5D's d*q at q = 2, d = 2); 64 tokens and
/// hidden 32 by 4 (3D's q^2); the vocabulary of 64 by 4. It is one replica's: with --dp D the
/// batch is D times as large.
constexpr BlockShape kDefaultGptShape{4, 16, 32, 4};

/// About what train's --json holds besides its steps (the configuration, hashes, hosts), and
/// for each step (its seven numbers, written out in full).
constexpr std::uintmax_t kTrainRecordBytes = 4096;
constexpr std::uintmax_t kTrainStepBytes = 256;

struct TrainOptions {
  std::string scheme = "1d";
  std::optional<int> np;  ///< unset: the scheme's default world size, times D
  std::int64_t steps = 30;
  DType dtype = DType::f64;
  std::optional<BlockShape> shape;  ///< unset: kDefaultGptShape for each replica
  std::int64_t vocab = 64;
  std::int64_t layers = 2;
  std::optional<double> lr;   // the optimizer's default_learning_rate when not given
  OptimizerConfig optimizer;  // the kind, betas, eps and weight decay
  double clip = 0;
  double logit_offset = 0;
  std::uint64_t seed = 1;
  Overlap overlap = Overlap::off;
  /// --depth, --regather, --dp, --dp-buckets, --dropout, --dropout-seed and --recompute.
  SchemeOptions scheme_options;
  std::optional<std::string> trace;
  LaunchOptions launch;
};

/// The names --optimizer takes.
constexpr std::array<Named<OptimizerKind>, 2> kOptimizerNames = {
    {{"sgd", OptimizerKind::sgd}, {"adamw", OptimizerKind::adamw}}};

/// The learning rate when --lr is not given: SGD's 0.3, AdamW's 0.01 (AdamW's steps are about
/// lr in size whatever the gradient's scale).
double default_learning_rate(OptimizerKind kind) {
  return kind == OptimizerKind::sgd ? 0.3 : 0.01;
}

/// The smallest world that splits every part of the model (SchemeEntry::train_world_size).
int default_world_size(const std::string& scheme) {
  return find_scheme(scheme).train_world_size;
}

/// "1d 2, 1d-sp 2, 2d 4, ...", for --np's help.
std::string default_world_sizes_help() {
  std::string text;
  for (const SchemeEntry& entry : scheme_registry()) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", entry.name, entry.train_world_size);
  }
  return text;
}

/// train's own options that change some trainings only.
constexpr std::array<EffectRule<train::TrainConfig>, 5> kTrainRules = {{
    {"--beta1",
     [](const train::TrainConfig& c) { return c.optimizer.kind == OptimizerKind::adamw; },
     "it is AdamW's: SGD has no such number (add --optimizer adamw)"},
    {"--beta2",
     [](const train::TrainConfig& c) { return c.optimizer.kind == OptimizerKind::adamw; },
     "it is AdamW's: SGD has no such number (add --optimizer adamw)"},
    {"--eps", [](const train::TrainConfig& c) { return c.optimizer.kind == OptimizerKind::adamw; },
     "it is AdamW's: SGD has no such number (add --optimizer adamw)"},
    {"--weight-decay",
     [](const train::TrainConfig& c) { return c.optimizer.kind == OptimizerKind::adamw; },
     "it is AdamW's: SGD has no such number (add --optimizer adamw)"},
    {"--no-masters", [](const train::TrainConfig& c) { return c.dtype == DType::bf16; },
     "f32 master weights are bf16's: f64 and f32 parameters are their own (add --dtype bf16)"},
}};

/// The world size of the training: --np, or the scheme's default times D.
int world_size(const TrainOptions& o) {
  return o.np.value_or(o.scheme_options.dp * o.scheme_options.pp * default_world_size(o.scheme));
}

train::TrainConfig make_config(const TrainOptions& o) {
  SchemeOptions options = o.scheme_options;
  options.overlap = o.overlap == Overlap::on;
  train::TrainConfig c{.scheme = o.scheme,
                       .options = options,
                       .shape = {.block = global_shape(o.shape, kDefaultGptShape, o.scheme_options),
                                 .vocab = o.vocab,
                                 .layers = o.layers},
                       .dtype = o.dtype,
                       .seed = o.seed,
                       .steps = o.steps,
                       .optimizer = o.optimizer,
                       .clip = o.clip,
                       .logit_offset = o.logit_offset};
  c.optimizer.learning_rate = o.lr.value_or(default_learning_rate(c.optimizer.kind));
  return c;
}

/// Refuses, with the reason, an option that changes nothing in this training (--overlap both,
/// which would run it twice; AdamW's numbers beside SGD; the shared options' rules).
void refuse_unused_options(const CLI::App& command, const TrainOptions& o,
                           const train::TrainConfig& config) {
  if (o.overlap == Overlap::both) {
    throw UsageError(
        "--overlap both runs each configuration twice, in verify and bench; train runs one "
        "training: give --overlap on or off");
  }
  refuse_without_effect(command, std::span<const EffectRule<train::TrainConfig>>(kTrainRules),
                        std::vector<train::TrainConfig>{config});
  refuse_without_effect(
      command, std::vector<PlannedRun>{{.scheme = config.scheme, .options = config.options}});
}

/// The verdict on a training whose curves both diverged (divergence.hpp): both at once to NaN
/// or Inf, or each past kDivergenceFactor times its first loss. Either way the learning rate is
/// too large for SGD, which says nothing about the parallel code.
std::string divergence_verdict(const train::TrainResult& r) {
  const train::StepRecord& p = r.steps[static_cast<std::size_t>(r.diverged->parallel_step)];
  const train::StepRecord& q = r.steps[static_cast<std::size_t>(r.diverged->reference_step)];
  const OptimizerConfig& optimizer = r.config.optimizer;
  const std::string method = optimizer.kind == OptimizerKind::sgd ? "SGD" : "AdamW";
  const double default_lr = default_learning_rate(optimizer.kind);
  if (p.step == q.step && !std::isfinite(p.loss) && !std::isfinite(p.reference_loss)) {
    return fmt::format(
        "FAIL: the loss is {} from step {} on, in the parallel model and in the reference "
        "alike: the training diverged ({} with --lr {} overflows the parameters; the default "
        "is {}), which says nothing about the parallel code",
        p.loss, p.step, method, optimizer.learning_rate, default_lr);
  }
  const train::StepRecord& first = r.steps.front();
  return fmt::format(
      "FAIL: the training diverged: the loss grew past {} times its first value in the parallel "
      "model ({:.6g} at step 0, {:.6g} at step {}) and in the reference ({:.6g} at step 0, "
      "{:.6g} at step {}); {} with --lr {} is unstable here (the default is {}), and the curves "
      "above part after that, which says nothing about the parallel code",
      train::kDivergenceFactor, first.loss, p.loss, p.step, first.reference_loss, q.reference_loss,
      q.step, method, optimizer.learning_rate, default_lr);
}

/// "; it first appeared in <stage, rank and pass>" for a step whose values were not all finite.
std::string first_seen(const train::StepRecord& s) {
  return s.non_finite.empty() ? "" : "; it first appeared in " + s.non_finite;
}

/// The verdict on what the run left behind, its curves aside: the padding, memory, transfers
/// between stages, the optimizer's updates kept and the parameters' drift; empty where all hold.
std::string state_verdict(const train::TrainResult& r) {
  if (!r.padding_touched.empty()) {
    return "FAIL: the padded vocabulary took part in training: " + r.padding_touched;
  }
  if (!r.memory_differs.empty()) return "FAIL: memory per rank: " + r.memory_differs;
  if (!r.transfers_differ.empty()) {
    return "FAIL: transfers between pipeline stages: " + r.transfers_differ;
  }
  if (!(r.lost_update_share <= train::kLostUpdateBound)) {
    return fmt::format(
        "FAIL: the parameters the optimizer keeps lost {:.3g} of its updates from step to step "
        "(at most {:g}: f32's rounding of each update){}",
        r.lost_update_share, train::kLostUpdateBound,
        r.config.dtype == DType::bf16 && r.config.optimizer.masters
            ? ": are the f32 masters kept and written back?"
        : r.config.optimizer.masters
            ? ""
            : ": with --no-masters bf16 loses the part of every update below its spacing");
  }
  if (!(r.parameter_drift_bound == 0 || r.parameter_drift <= r.parameter_drift_bound)) {
    return fmt::format(
        "FAIL: the parameters ended {:.3g} of training's movement away from the reference's, "
        "past the bound of {:.3g}: the updates bf16 rounds away were lost{}",
        r.parameter_drift, r.parameter_drift_bound,
        r.config.optimizer.masters ? " (are the f32 masters kept and written back?)"
                                   : " (--no-masters: as an optimizer without masters loses them)");
  }
  return {};
}

/// The verdict's line. A loss or gradient norm that turns NaN or Inf in one curve alone is named
/// with the step, the side and (the parallel model's) the stage, rank and pass where it first
/// did: the parallel model alone is a bug in it.
std::string verdict(const train::TrainResult& r) {
  if (r.pass) return "PASS: the loss curve agrees with the reference at every step";
  if (r.diverged) return divergence_verdict(r);
  for (const train::StepRecord& s : r.steps) {
    const bool parallel = !std::isfinite(s.loss), reference = !std::isfinite(s.reference_loss);
    if (parallel && !reference) {
      return fmt::format(
          "FAIL: the parallel model's loss is {} at step {}, where the reference's is {:.6f}: "
          "the parallel model made a NaN or Inf the reference did not{}",
          s.loss, s.step, s.reference_loss, first_seen(s));
    }
    if (reference && !parallel) {
      return fmt::format(
          "FAIL: the reference's loss is {} at step {}, where the parallel model's is {:.6f}: "
          "the training diverged in f64 first (try a smaller --lr)",
          s.reference_loss, s.step, s.loss);
    }
  }
  for (const train::StepRecord& s : r.steps) {
    if (!std::isfinite(s.gradient_norm) && std::isfinite(s.reference_gradient_norm)) {
      return fmt::format(
          "FAIL: the gradient norm is {} at step {}, where the reference's is {:.6f}: the "
          "parallel model's gradients hold a NaN or Inf the reference's do not{}",
          s.gradient_norm, s.step, s.reference_gradient_norm, first_seen(s));
    }
    if (!r.tolerance.norm_holds(s.gradient_norm, s.reference_gradient_norm, s.step)) {
      return fmt::format(
          "FAIL: the gradient norm is {:.6f} at step {}, where the reference's is {:.6f} ({:.2e} "
          "relative): an element counted more than once (a replicated tensor on each rank that "
          "holds it) or a wrong gradient",
          s.gradient_norm, s.step, s.reference_gradient_norm, s.norm_relative_difference);
    }
  }
  if (std::string why = state_verdict(r); !why.empty()) return why;
  return "FAIL: the loss curve or the replicas disagree (see above)";
}

/// One line of what the largest rank holds by kind, and whether every rank holds what the cost
/// model says, in every step.
void print_memory(const train::TrainResult& r) {
  const verify::MemoryBreakdown& m = *r.memory;
  const auto kib = [](std::int64_t bytes) { return static_cast<double>(bytes) / 1024.0; };
  fmt::print(
      "memory per rank (KiB, the largest): parameters {:.1f}, gradients {:.1f}, optimizer {:.1f}, "
      "kept for backward {:.1f}; {}\n",
      kib(m.parameters.measured), kib(m.gradients.measured), kib(m.optimizer.measured),
      kib(m.activations.measured),
      r.memory_differs.empty() ? "every rank's as the cost model says, in every step"
                               : "DIFFERS: " + r.memory_differs);
}

/// Each stage's idle share of the step (the median over the steps after the first), beside the
/// bubble's formula.
void print_bubble(const train::TrainResult& r) {
  const SchemeOptions& o = r.config.options;
  std::string stages;
  for (int s = 0; s < o.pp; ++s) {
    std::vector<double> shares;
    for (std::size_t k = r.steps.size() > 1 ? 1 : 0; k < r.steps.size(); ++k) {
      shares.push_back(r.steps[k].stage_idle_share[static_cast<std::size_t>(s)]);
    }
    std::nth_element(shares.begin(),
                     shares.begin() + static_cast<std::ptrdiff_t>(shares.size() / 2), shares.end());
    stages +=
        fmt::format("{}stage {} {:.0f}%", s == 0 ? "" : ", ", s, 100 * shares[shares.size() / 2]);
  }
  fmt::print(
      "bubble: idle share of the step (waiting for a neighbour, the median step) {}; the "
      "formula (S - 1)/(M + S - 1) = {:.0f}% for stages equally fast and free transfers "
      "(--trace draws each rank's F and B)\n",
      stages, 100 * pipeline::bubble_fraction(o.pp, o.micro_batches));
}

/// How far the parameters (bf16: the f32 masters) ended from the reference's, and the share of
/// the optimizer's updates they lost, against their bounds.
void print_drift(const train::TrainResult& r) {
  const bool masters = r.config.dtype == DType::bf16;
  const std::string what = !masters                     ? "parameters"
                           : r.config.optimizer.masters ? "f32 masters"
                                                        : "parameters (no masters kept)";
  fmt::print(
      "{}: ||theta - theta_ref|| / ||theta_ref - theta_0|| = {:.3g} after the last step{}\n", what,
      r.parameter_drift,
      r.parameter_drift_bound == 0
          ? " (not judged: the loss is)"
          : fmt::format(", bound {:.3g} ({})", r.parameter_drift_bound,
                        r.parameter_drift <= r.parameter_drift_bound ? "within" : "PAST IT"));
  fmt::print(
      "{}: {:.3g} of the optimizer's updates lost from step to step (against its rule in f64 "
      "from where the last step left them), bound {:g} ({})\n",
      what, r.lost_update_share, train::kLostUpdateBound,
      r.lost_update_share <= train::kLostUpdateBound ? "within" : "PAST IT");
}

void print_result(const train::TrainResult& r) {
  const auto& first = r.steps.front();
  const auto& last = r.steps.back();
  double seconds = 0, comm = 0;
  for (const auto& s : r.steps) {
    seconds += s.seconds;
    comm += s.comm_seconds;
  }
  const double tokens = static_cast<double>(r.config.shape.block.tokens() * r.config.steps);
  const std::string_view dtype = dtype_name(r.config.dtype);
  fmt::print("loss {:.6f} at step 0, {:.6f} at step {} (reference {:.6f} -> {:.6f})\n", first.loss,
             last.loss, last.step, first.reference_loss, last.reference_loss);
  fmt::print(
      "loss against the reference: max relative difference {:.2e} over {} steps "
      "(tolerance {}, {}: {})\n",
      r.max_relative_difference, r.steps.size(), r.tolerance.text(), dtype, r.tolerance.basis);
  fmt::print(
      "gradient norm against the reference's: max relative difference {:.2e} (tolerance "
      "{}; each rank counts the shards no lower rank holds)\n",
      r.max_norm_relative_difference,
      r.tolerance.norm_after_first
          ? r.tolerance.text()
          : fmt::format("{:.0e} at step 0, where both models hold the same parameters; after "
                        "it printed, not judged: {} trajectories part",
                        r.tolerance.first_rtol, dtype));
  if (r.padded_vocab > r.config.shape.vocab) {
    if (r.padding_touched.empty()) {
      fmt::print(
          "padding: ids from {} on took no probability and no gradient, and every padded "
          "parameter is still 0\n",
          r.config.shape.vocab);
    } else {
      fmt::print("padding TOUCHED: {}\n", r.padding_touched);
    }
  }
  print_drift(r);
  fmt::print("throughput: {:.0f} tokens/s over the run, {:.0f}% of the step in communication\n",
             tokens / seconds, 100 * comm / seconds);
  if (r.config.options.pp > 1) print_bubble(r);
  if (r.replicas_differ.empty()) {
    fmt::print("replicas: {} replicated parameters, every replica bitwise identical\n",
               r.replicated_parameters);
  } else {
    fmt::print("replicas DIFFER: {}\n", r.replicas_differ);
  }
  print_memory(r);
  fmt::print("hashes: loss curve {:016x}, final parameters {:016x}\n", r.loss_hash,
             r.parameter_hash);
  fmt::print("{}\n", verdict(r));
}

// ---- inside mpiexec ---------------------------------------------------------------------------

/// "sgd lr=0.3" or "adamw lr=0.01 betas=(0.9, 0.95) eps=1e-08 wd=0.1", with the clip.
std::string optimizer_summary(const train::TrainConfig& config) {
  const OptimizerConfig& o = config.optimizer;
  std::string text = fmt::format("{} lr={}", optimizer_name(o.kind), o.learning_rate);
  if (o.kind == OptimizerKind::adamw) {
    text += fmt::format(" betas=({}, {}) eps={} wd={} (matrices only)", o.beta1, o.beta2, o.eps,
                        o.weight_decay);
  }
  if (config.clip > 0) text += fmt::format(" clip={}", config.clip);
  return text;
}

/// " | 4 micro-batches, 1f1b over 2 stages": the tail of the header, with micro-batches.
std::string describe_pipeline(const SchemeOptions& options) {
  if (options.micro_batches == 1 && options.pp == 1) return {};
  if (options.pp == 1) {
    return fmt::format(" | {} micro-batches, one after another", options.micro_batches);
  }
  return fmt::format(" | {} micro-batches, {} over {} stages", options.micro_batches,
                     schedule_name(options.schedule), options.pp);
}

void print_header(const train::TrainConfig& config, const World& w) {
  fmt::print("train {} | np={} ({}) | {} | {} | {} seed={} | {} steps{}{}{}\n", config.scheme,
             w.comm.size(), train::training_grid(w.comm.size(), config), dtype_name(config.dtype),
             gpt::to_string(config.shape), optimizer_summary(config), config.seed, config.steps,
             config.logit_offset == 0
                 ? std::string()
                 : fmt::format(" | every logit offset by {:g} (exp overflows {} past {:.1f})",
                               config.logit_offset, dtype_name(config.dtype),
                               verify::exp_overflow_point(config.dtype)),
             describe_block_training(config.options.training), describe_pipeline(config.options));
  const train::VocabPadding vocab = train::training_vocab_padding(w.comm.size(), config);
  if (vocab.padded > config.shape.vocab) {
    fmt::print(
        "vocabulary: V={} padded to {}, a multiple of the {} parts it is split into; ids {}..{} "
        "are masked out of the loss\n",
        config.shape.vocab, vocab.padded, vocab.parts, config.shape.vocab, vocab.padded - 1);
  }
  if (config.dtype == DType::bf16) {
    fmt::print(
        "bf16: the model stored in bf16, each operation computed in f32 and rounded once; "
        "products by {}; {}\n",
        w.device.kind() == DeviceKind::cpu ? cpu::describe(cpu::chosen_bf16_gemm_path())
                                           : std::string("cuBLAS (f32 accumulation)"),
        config.optimizer.masters
            ? "f32 master weights, gradients and optimizer state"
            : "f32 gradients and optimizer state, and no master weights (--no-masters): each "
              "step updates an f32 copy made from the bf16 parameter");
  }
  fmt::print("ranks on {}\n", w.hosts.summary());
  fmt::print("  {:>5} {:>14} {:>14} {:>10} {:>10} {:>6} {:>12} {:>12}\n", "step", "loss",
             "reference", "rel diff", "tokens/s", "comm", "grad norm", "reference");
  std::fflush(stdout);
}

WorldResult train_in_world(const TrainOptions& o, World& w) {
  const int rank = w.comm.rank();
  const train::TrainConfig config = make_config(o);
  train::validate_training(w.comm.size(), config);
  if (rank == 0) print_header(config, w);
  train::TrainResult result =
      train::run_training(w.comm, w.device, config, [&](const train::TrainResult& so_far) {
        if (rank != 0) return;
        const train::StepRecord& s = so_far.steps.back();
        fmt::print(
            "  {:>5} {:>14.10f} {:>14.10f} {:>10.2e} {:>10.0f} {:>5.0f}% {:>12.6f} {:>12.6f}\n",
            s.step, s.loss, s.reference_loss, s.relative_difference, s.tokens_per_second,
            100 * s.comm_seconds / s.seconds, s.gradient_norm, s.reference_gradient_norm);
        std::fflush(stdout);
        w.keep_progress([&] { return nlohmann::json::array({train::to_json(so_far)}); });
      });
  // the process's peak resident memory beside the allocator's: the CPU's cross-check
  verify::MemoryBreakdown resident;
  resident.peak_resident = bench::peak_resident_bytes();
  result.memory->peak_resident = verify::largest_over_ranks(w.comm, resident).peak_resident;
  if (rank == 0) print_result(result);
  nlohmann::json record = train::to_json(result);
  record["device"] = w.device.description();
  return {.records = nlohmann::json::array({record}), .pass = result.pass};
}

// ---- outside mpiexec: check the request, then launch it ---------------------------------------

/// The run's MFU from its steps' median time (mfu.hpp), when it kept any steps.
void add_mfu(nlohmann::json& document, const train::TrainConfig& config,
             const nlohmann::json& peak) {
  std::vector<double> seconds;
  for (const auto& step : document.value("steps", nlohmann::json::array())) {
    seconds.push_back(step["seconds"].get<double>());
  }
  if (seconds.empty()) return;
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double flops = train::model_flops_per_step(config);
  document["peak"] = peak;
  document["model_flops_per_step"] = flops;
  document["median_step_seconds"] = median;
  document["mfu"] = model_flops_utilisation(flops / median, document["np"].get<int>(), peak);
}

/// The --json of a training: the job's record, with the verdict and the failure when the job
/// ended without one, and its MFU against `peak`.
nlohmann::json training_document(const SeriesResult& series, const train::TrainConfig& config,
                                 const nlohmann::json& peak) {
  nlohmann::json document = series.runs.empty() ? nlohmann::json::object() : series.runs[0];
  document["pass"] = series.failures.empty() && document.value("pass", false);
  document["failures"] = nlohmann::json::array();
  for (const JobFailure& f : series.failures) document["failures"].push_back(f.to_json());
  if (document.contains("np")) add_mfu(document, config, peak);
  return document;
}

/// The MFU line under the job's own output.
void print_mfu(const nlohmann::json& document) {
  const nlohmann::json& peak = document["peak"];
  fmt::print(
      "MFU: {:.2f}% ({:.3g} model FLOPs a step, the median step {:.2f} ms, over min(np, {}) "
      "cores x {:.1f} GFLOP/s,\n     one core's {} peak: {}; {})\n",
      document["mfu"].get<double>() * 100, document["model_flops_per_step"].get<double>(),
      document["median_step_seconds"].get<double>() * 1e3, peak["cores"].get<int>(),
      peak["flops_per_s_per_core"].get<double>() / 1e9, peak["dtype"].get<std::string>(),
      peak["path"].get<std::string>(), peak["source"].get<std::string>());
}

/// For a job of several stages or replicas that failed: where on the mesh each rank its last
/// words name ("rank 2", mpiexec's "process rank 2") sits, so that a rank killed from outside is
/// named by its stage too.
void print_failed_ranks(const SeriesResult& series, const MeshLayout& mesh) {
  if (mesh.stages == 1 && mesh.replicas == 1) return;
  static const std::regex kRank(R"(\brank (\d{1,9})\b)", std::regex::icase);
  std::set<int> named;
  for (const JobFailure& f : series.failures) {
    const std::string words = f.exit_reason + " " + f.last_message;
    for (auto m = std::sregex_iterator(words.begin(), words.end(), kRank);
         m != std::sregex_iterator(); ++m) {
      const int rank = std::stoi((*m)[1].str());
      if (rank < mesh.world_size()) named.insert(rank);
    }
  }
  for (int rank : named) {
    fmt::print("  rank {} is pipeline stage {} of {}, replica {} of {}, scheme rank {}\n", rank,
               mesh.stage_of(rank), mesh.stages, mesh.replica_of(rank), mesh.replicas,
               mesh.scheme_rank_of(rank));
  }
}

/// The end of a training whose job ended early (past its --timeout, killed, ...): where the
/// ranks its failure names sat, and how many steps it finished and kept (those the table above
/// shows, but for the last when it had no time to keep them).
void print_cut_short(const SeriesResult& series, const nlohmann::json& document,
                     const TrainOptions& o, const MeshLayout& mesh) {
  print_failed_ranks(series, mesh);
  const std::size_t kept = document.value("steps", nlohmann::json::array()).size();
  const std::string how =
      series.timed_out
          ? fmt::format("TIMED OUT: the training ran past --timeout {} s", o.launch.timeout)
          : std::string("ENDED EARLY: the training's job ended before its last step (above)");
  fmt::print("{}; {} of its {} steps were kept{}\n", how, kept, o.steps,
             o.launch.json ? fmt::format(", in {}", *o.launch.json) : std::string());
}

int drive(const CLI::App& command, const TrainOptions& o) {
  const int np = world_size(o);
  const train::TrainConfig config = make_config(o);
  refuse_unused_options(command, o, config);
  train::validate_training(np, config);
  LaunchPlan plan;
  plan.jobs = {{.label = fmt::format("train {} on {}", o.scheme, gpt::to_string(config.shape)),
                .np = np,
                .overrides = {},
                .bytes_per_rank = train::training_bytes_per_rank(config)}};
  plan.tensors = "every rank trains the reference in f64 beside its shards";
  plan.smaller = "a smaller --shape, --vocab or --layers";
  plan.result_bytes = kTrainRecordBytes + kTrainStepBytes * static_cast<std::uintmax_t>(o.steps);
  plan_traces(plan, o.trace, o.launch.json);
  const nlohmann::json peak = measured_peak(config.dtype);
  const auto document_of = [&](const SeriesResult& so_far) {
    return training_document(so_far, config, peak);
  };
  const SeriesResult series = launch_jobs(command, o.launch, plan, document_of);
  const nlohmann::json document = document_of(series);
  if (document.contains("mfu")) print_mfu(document);
  if (!series.failures.empty()) {
    print_cut_short(series, document, o, mesh_of(config.options, np));
  }
  return exit_code_of(series, document["pass"].get<bool>());
}

}  // namespace

void add_train_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "train",
      "Train a tiny GPT on one scheme for K steps beside the single-device reference.\n"
      "Launches mpiexec itself; under mpiexec it trains on that world.");
  add_scheme_option(*cmd, o->scheme);
  add_np_option(*cmd, o->np, default_world_sizes_help() + ", times D x S with --dp D --pp S");
  cmd->add_option("--steps", o->steps, "optimizer steps K")
      ->check(positive_count_check())
      ->capture_default_str();
  add_dtype_option(*cmd, o->dtype, "; bf16 with f32 master weights, gradients and AdamW moments");
  add_shape_option(*cmd, o->shape, shape_argument(kDefaultGptShape) + " for each replica");
  add_gpt_size_options(*cmd, o->vocab, o->layers);
  add_choice(*cmd, "--optimizer", o->optimizer.kind, kOptimizerNames,
             "sgd or adamw (AdamW's state sharded as its parameters)");
  cmd->add_option_function<double>(
      "--lr", [o](double lr) { o->lr = lr; }, "learning rate (default: sgd 0.3, adamw 0.01)");
  cmd->add_option("--beta1", o->optimizer.beta1, "AdamW's beta1")->capture_default_str();
  cmd->add_option("--beta2", o->optimizer.beta2, "AdamW's beta2")->capture_default_str();
  cmd->add_option("--eps", o->optimizer.eps, "AdamW's eps")->capture_default_str();
  cmd->add_option("--weight-decay", o->optimizer.weight_decay,
                  "AdamW's decoupled weight decay, on matrices (not biases or LayerNorm)")
      ->capture_default_str();
  cmd->add_option("--clip", o->clip,
                  "clip the gradient to this global norm, each element counted once (0: off)")
      ->capture_default_str();
  cmd->add_flag_function(
      "--no-masters", [o](std::int64_t) { o->optimizer.masters = false; },
      "bf16: make each step's f32 copy of a parameter again from its bf16 value, as an "
      "optimizer without master weights does, so that the part of every update below bf16's "
      "spacing is lost: the run fails, naming the share of its updates lost (and, where "
      "updates are small against that spacing, how far the parameters drifted; "
      "docs/training.md)");
  cmd->add_option("--logit-offset", o->logit_offset,
                  "start every entry of b_head at this value, so every logit shares it: past 709.8 "
                  "(f64) or 88.7 (f32) a log-sum-exp without its max-shift overflows")
      ->capture_default_str();
  add_seed_option(*cmd, o->seed, "the parameters and the data");
  add_scheme_build_options(*cmd, o->scheme_options);
  add_overlap_option(*cmd, o->overlap, "train takes on or off");
  add_mesh_options(*cmd, o->scheme_options);
  add_pipeline_options(*cmd, o->scheme_options);
  add_block_training_options(*cmd, o->scheme_options.training);
  add_trace_option(*cmd, o->trace, "every rank's timeline (operations, collectives, steps)");
  add_launch_options(*cmd, o->launch, "every step and the verdict");
  run_over_mpi(
      *cmd, exit_code,
      [o, cmd] {
        const std::vector<int> np = o->np ? std::vector<int>{*o->np} : std::vector<int>{};
        return run_in_world(WorldSetup::for_job(np, o->launch.json, o->trace),
                            [&](World& w) { return train_in_world(*o, w); });
      },
      [o, cmd] { return drive(*cmd, *o); });
}

}  // namespace tplab::app
