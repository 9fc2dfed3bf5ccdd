/// @file
/// The training harness: shards, steps, the loss report, and the checks at the end.
#include "trainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"
#include "gpt/gpt_model.hpp"
#include "gpt_activations.hpp"
#include "harness.hpp"
#include "initial_parameters.hpp"
#include "loss_tolerance.hpp"
#include "mesh/gradient_reduction.hpp"
#include "mesh/mesh_layout.hpp"
#include "optim/gradient_norm.hpp"
#include "parameter_drift.hpp"
#include "pipeline/pipeline_problem.hpp"
#include "pipeline/stage_step.hpp"
#include "pipelined_gpt.hpp"
#include "plan/gpt_model.hpp"
#include "reference_training.hpp"
#include "registry/make_scheme.hpp"
#include "tensor_check.hpp"
#include "trace/trace_recorder.hpp"
#include "training_data.hpp"
#include "update_audit.hpp"
#include "vocab_padding.hpp"

namespace tplab::train {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t fnv1a(std::span<const std::uint64_t> words) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint64_t w : words) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= (w >> (8 * byte)) & 0xff;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

/// Every parameter of the GPT `shape`, by name, in the order a TensorMap keeps them.
std::vector<std::string> sorted_parameter_names(const gpt::GptShape& shape) {
  std::vector<std::string> names = gpt::parameter_names(shape);
  std::sort(names.begin(), names.end());
  return names;
}

/// Every rank's hash of every tensor of `tensors` that it holds, gathered on every rank: one
/// FNV-1a of each shard's bits per (rank, name), 0 where the rank holds none. Collective.
class ShardHashes {
 public:
  /// `names`: every name any rank holds (sorted_parameter_names, or their gradient_name()s).
  ShardHashes(Comm& world, Device& device, const TensorMap& tensors,
              const std::vector<std::string>& names)
      : names_(names.size()) {
    CpuDevice host;
    Tensor mine = host.zeros({2 * static_cast<std::int64_t>(names_)}, DType::f64);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto held = tensors.find(names[i]);
      if (held == tensors.end()) continue;
      std::vector<double> values(static_cast<std::size_t>(held->second.numel()));
      device.download(held->second, values);
      const std::uint64_t h = verify::bit_hash(values);
      // two 32-bit halves, which doubles hold exactly
      mine.data_as<double>()[2 * i] = static_cast<double>(h >> 32);
      mine.data_as<double>()[2 * i + 1] = static_cast<double>(h & 0xffffffffull);
    }
    all_ = host.empty({world.size() * 2 * static_cast<std::int64_t>(names_)}, DType::f64);
    world.all_gather(mine, all_);
  }
  /// Rank `rank`'s hash of the tensor `index` of the names (0: not held there).
  std::uint64_t of(int rank, std::size_t index) const {
    const double* at =
        all_.data_as<double>() + (static_cast<std::size_t>(rank) * names_ + index) * 2;
    return (static_cast<std::uint64_t>(at[0]) << 32) | static_cast<std::uint64_t>(at[1]);
  }

 private:
  std::size_t names_;
  Tensor all_;
};

/// One FNV-1a over every tensor of the model as one replica's tensor-parallel ranks hold it,
/// the same for any number of stages and replicas: tensor by tensor in name order, scheme rank
/// by scheme rank, the hash of replica 0's shard on the stage that holds it. Two runs of the
/// same scheme on the same tensor-parallel ranks with equal fingerprints hold the same bits.
std::uint64_t layout_fingerprint(const ShardHashes& hashes, const std::vector<std::string>& names,
                                 const MeshLayout& mesh, const gpt::GptShape& shape) {
  std::vector<std::uint64_t> every;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string_view parameter = names[i];
    if (parameter.starts_with("d_")) parameter.remove_prefix(2);
    const int stage = gpt::stage_holding(parameter, shape, mesh.stages);
    for (int t = 0; t < mesh.scheme_ranks; ++t) {
      every.push_back(hashes.of(stage * mesh.scheme_ranks + t, i));
    }
  }
  return fnv1a(every);
}

/// The global norm of `gradients` (this rank's), every element counted once (by the lowest rank
/// that holds its block: gradients_counted_by) and summed in one order whatever the layout:
/// each rank's sum of squares per tensor, gathered, then added tensor by tensor in name order,
/// scheme rank by scheme rank, from replica 0's ranks of the stage that holds the tensor. A
/// pipelined run and its serial twin therefore clip by the same bits. Collective.
double gradient_norm_in_name_order(Comm& world, Device& device, const TensorMap& gradients,
                                   const std::vector<TensorPlacement>& placements,
                                   const std::vector<std::string>& names, const MeshLayout& mesh,
                                   const gpt::GptShape& shape) {
  const TensorMap counted = gradients_counted_by(world.rank(), gradients, placements);
  CpuDevice host;
  const auto n = static_cast<std::int64_t>(names.size());
  Tensor mine = host.zeros({n}, DType::f64);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto held = counted.find(names[static_cast<std::size_t>(i)]);
    if (held != counted.end()) mine.data_as<double>()[i] = device.sum_of_squares(held->second);
  }
  Tensor all = host.empty({world.size() * n}, DType::f64);
  world.all_gather(mine, all);
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const int stage = gpt::stage_holding(
        std::string_view(names[static_cast<std::size_t>(i)]).substr(2), shape, mesh.stages);
    for (int t = 0; t < mesh.scheme_ranks; ++t) {
      sum += all.data_as<double>()[(stage * mesh.scheme_ranks + t) * n + i];
    }
  }
  return std::sqrt(sum);
}

/// Compares the hashes of every shard of `parameters` (the model's, or their f32 masters)
/// among the ranks that hold the same block, as verify does for gradients; returns the first
/// parameter whose replicas differ (or "") and sets the run's parameter hash (every rank's
/// shards in rank order), its layout fingerprint and the count of replicated parameters.
std::string check_replicas(Comm& world, Device& device, const TensorMap& parameters,
                           const std::vector<TensorPlacement>& placements, const MeshLayout& mesh,
                           const gpt::GptShape& shape, TrainResult& result) {
  const std::vector<std::string> names = sorted_parameter_names(shape);
  const ShardHashes hashes(world, device, parameters, names);
  const auto holds = [&](const TensorPlacement& p, int rank) {
    const BlockRange& b = p.blocks[static_cast<std::size_t>(rank)];
    return b.rows > 0 && b.cols > 0;
  };
  std::vector<std::uint64_t> every;
  for (int r = 0; r < world.size(); ++r) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (holds(find_placement(placements, names[i]), r)) every.push_back(hashes.of(r, i));
    }
  }
  result.parameter_hash = fnv1a(every);
  result.parameter_fingerprint = layout_fingerprint(hashes, names, mesh, shape);

  std::string differ;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const TensorPlacement& p = find_placement(placements, names[i]);
    bool replicated = false;
    for (int a = 0; a < world.size(); ++a) {
      for (int b = a + 1; b < world.size(); ++b) {
        if (!holds(p, a) ||
            p.blocks[static_cast<std::size_t>(a)] != p.blocks[static_cast<std::size_t>(b)]) {
          continue;
        }
        replicated = true;
        if (hashes.of(a, i) != hashes.of(b, i) && differ.empty()) {
          differ = fmt::format("{}: ranks {} and {} hold the same block ({}) with other bits",
                               names[i], a, b, p.rule);
        }
      }
    }
    result.replicated_parameters += replicated ? 1 : 0;
  }
  return differ;
}

/// |a - b| / |b|.
double relative_difference(double a, double b) {
  return std::abs(a - b) / std::abs(b);
}

/// max = the larger of max and v, where a NaN in either stays NaN.
void keep_largest(double& max, double v) {
  if (!std::isnan(max) && !(v <= max)) max = v;
}

/// Adds `record` to the run, with its differences from the reference and the run's maxima.
void record_step(StepRecord record, TrainResult& result) {
  record.relative_difference = relative_difference(record.loss, record.reference_loss);
  keep_largest(result.max_relative_difference, record.relative_difference);
  record.norm_relative_difference =
      relative_difference(record.gradient_norm, record.reference_gradient_norm);
  keep_largest(result.max_norm_relative_difference, record.norm_relative_difference);
  result.steps.push_back(record);
}

/// Every step's loss, and with --clip its gradient norm, within the tolerance (written so
/// that NaN fails).
bool within_tolerance(const TrainResult& r) {
  return std::all_of(r.steps.begin(), r.steps.end(), [&](const StepRecord& s) {
    return r.tolerance.loss_holds(s.loss, s.reference_loss, s.step) &&
           r.tolerance.norm_holds(s.gradient_norm, s.reference_gradient_norm, s.step);
  });
}

/// Throws UsageError unless the optimizer's and the clip's numbers can train.
void validate_optimizer(const TrainConfig& config) {
  const OptimizerConfig& o = config.optimizer;
  if (!(o.learning_rate > 0) || !std::isfinite(o.learning_rate)) {
    throw UsageError(
        fmt::format("--lr {}: the learning rate must be a positive number", o.learning_rate));
  }
  if (!(config.clip >= 0) || !std::isfinite(config.clip)) {
    throw UsageError(fmt::format(
        "--clip {}: the largest gradient norm must be a positive number (or 0: no clipping)",
        config.clip));
  }
  if (o.kind != OptimizerKind::adamw) return;
  for (const auto& [name, beta] : {std::pair{"--beta1", o.beta1}, std::pair{"--beta2", o.beta2}}) {
    if (!(beta >= 0 && beta < 1)) {
      throw UsageError(fmt::format(
          "{} {}: AdamW's betas are decay rates in [0, 1) (1 would never forget)", name, beta));
    }
  }
  if (!(o.eps > 0) || !std::isfinite(o.eps)) {
    throw UsageError(fmt::format("--eps {}: AdamW's eps must be a positive number", o.eps));
  }
  if (!(o.weight_decay >= 0) || !std::isfinite(o.weight_decay)) {
    throw UsageError(
        fmt::format("--weight-decay {}: the weight decay must be 0 or more", o.weight_decay));
  }
  if (!(o.learning_rate * o.weight_decay < 1)) {
    throw UsageError(fmt::format(
        "--weight-decay {} with --lr {}: each step multiplies every matrix by 1 - lr x weight "
        "decay = {:g}; lr x weight decay must be below 1",
        o.weight_decay, o.learning_rate, 1 - o.learning_rate * o.weight_decay));
  }
}

/// The shape of the parallel model: V padded on one replica's ranks.
gpt::GptShape padded_shape(int world_size, const TrainConfig& config) {
  gpt::GptShape shape = config.shape;
  shape.vocab = training_vocab_padding(world_size, config).padded;
  return shape;
}

}  // namespace

VocabPadding training_vocab_padding(int world_size, const TrainConfig& config) {
  if (!pipeline::pipeline_problem(config.options, config.shape, world_size).empty() ||
      config.options.dp < 1 || world_size % (config.options.dp * config.options.pp) != 0) {
    return {0, config.shape.vocab};
  }
  const MeshLayout mesh = mesh_of(config.options, world_size);
  const auto layout = gpt::make_gpt_layout(config.scheme, replica_options(config.options));
  const gpt::GptShape micro = pipeline::micro_batch_shape(config.shape, config.options);
  return {layout->vocab_parts(mesh.scheme_ranks, micro),
          gpt::padded_vocab(*layout, mesh.scheme_ranks, micro)};
}

void validate_training(int world_size, const TrainConfig& config) {
  if (config.steps < 1) {
    throw UsageError(fmt::format("--steps {}: train at least 1 step", config.steps));
  }
  validate_optimizer(config);
  if (!std::isfinite(config.logit_offset)) {
    throw UsageError(
        fmt::format("--logit-offset {}: the offset must be a finite number", config.logit_offset));
  }
  loss_tolerance(config.dtype);
  if (config.dtype == DType::bf16) cpu::chosen_bf16_gemm_path();  // TPLAB_BF16_GEMM, if set
  if (const std::string problem = gpt::gpt_shape_problem(config.shape); !problem.empty()) {
    throw UsageError(fmt::format("shape {}: {}", gpt::to_string(config.shape), problem));
  }
  // The pipeline's stages and micro-batches, then the mesh of one stage (D divides its ranks and
  // the batch), then the model on one stage of one replica for one micro-batch.
  if (const std::string problem =
          pipeline::pipeline_problem(config.options, config.shape, world_size);
      !problem.empty()) {
    throw UsageError(problem);
  }
  SchemeOptions one_stage = config.options;
  one_stage.pp = 1;
  make_scheme(config.scheme, one_stage)
      ->validate(world_size / config.options.pp, config.shape.block);
  const MeshLayout mesh = mesh_of(config.options, world_size);
  const SchemeOptions options = replica_options(config.options);
  const auto layout = gpt::make_gpt_layout(config.scheme, options);
  gpt::validate_gpt(*make_scheme(config.scheme, options), *layout, mesh.scheme_ranks,
                    pipeline::micro_batch_shape(padded_shape(world_size, config), config.options));
}

double model_flops_per_step(const TrainConfig& config) {
  const gpt::GptShape& g = config.shape;
  const model::plan::GptModel model{g.layers, g.block.h, g.block.heads, g.block.s, g.vocab};
  return model::plan::model_step_flops(model, {g.block.b, g.block.b});
}

std::string training_grid(int world_size, const TrainConfig& config) {
  const SchemeOptions& o = config.options;
  if (o.pp == 1) {
    return make_scheme(config.scheme, o)->describe_grid(world_size, config.shape.block);
  }
  const int scheme_ranks = world_size / (o.dp * o.pp);
  return fmt::format("{}pp={} {}", o.dp > 1 ? fmt::format("dp={} ", o.dp) : "", o.pp,
                     make_scheme(config.scheme, replica_options(o))
                         ->describe_grid(scheme_ranks, config.shape.block));
}

double training_bytes_per_rank(const TrainConfig& config) {
  const gpt::GptShape& shape = config.shape;
  const double m = static_cast<double>(shape.block.tokens()),
               h = static_cast<double>(shape.block.h), v = static_cast<double>(shape.vocab),
               layers = static_cast<double>(shape.layers);
  // the embedding and the head with their gradients (4 V h), the logits, probabilities and
  // their gradient (3 m V), in f64
  const double vocabulary = 8.0 * (4.0 * v * h + 3.0 * m * v);
  // AdamW's two moments of every parameter, in f64
  double parameters = 0;
  for (std::string_view p : kBlockParameters) {
    parameters += layers * static_cast<double>(element_count(global_extents(p, shape.block)));
  }
  for (std::string_view p : gpt::kModelParameters) {
    parameters += static_cast<double>(element_count(gpt::gpt_extents(p, shape)));
  }
  const double moments = config.optimizer.kind == OptimizerKind::adamw ? 16.0 * parameters : 0;
  const double reference =
      layers * verify::verify_bytes_per_rank(shape.block) + vocabulary + moments;
  return 2.0 * reference;
}

namespace {

/// Empty when every step of every rank of `world` kept for backward what its first step kept
/// (`kept_by_step`: this rank's, step by step); otherwise the lowest such rank's first step
/// that kept another amount. A part that still holds a tensor of the step before when the next
/// forward starts, or a kept tensor that grows, shows here (from the second step on; step 0 is
/// held to the model). Collective.
std::string kept_changes(Comm& world, const std::vector<std::int64_t>& kept_by_step) {
  CpuDevice host;
  Tensor sent = host.zeros({3}, DType::f64);  // (step + 1, its bytes, step 0's), or 0s
  double* mine = sent.data_as<double>();
  for (std::size_t s = 1; s < kept_by_step.size(); ++s) {
    if (kept_by_step[s] != kept_by_step.front()) {
      mine[0] = static_cast<double>(s + 1);
      mine[1] = static_cast<double>(kept_by_step[s]);
      mine[2] = static_cast<double>(kept_by_step.front());
      break;
    }
  }
  Tensor all = host.empty({world.size() * 3}, DType::f64);
  world.all_gather(sent, all);
  for (int r = 0; r < world.size(); ++r) {
    const double* v = all.data_as<double>() + 3 * r;
    if (v[0] > 0) {
      return fmt::format(
          "rank {}: step {} kept {:.0f} bytes for backward, step 0 {:.0f} (something held from "
          "one step into the next, or kept only sometimes)",
          r, v[0] - 1, v[1], v[2]);
    }
  }
  return {};
}

/// The parameters' drift within its bound, where one is judged, and the optimizer's updates
/// kept (NaN never is).
bool drift_within_bound(const TrainResult& r) {
  return (r.parameter_drift_bound == 0 || r.parameter_drift <= r.parameter_drift_bound) &&
         r.lost_update_share <= kLostUpdateBound;
}

}  // namespace

TrainResult run_training(Comm& world, Device& device, const TrainConfig& config,
                         const std::function<void(const TrainResult&)>& on_step) {
  // Decide everything that can fail before the first collective, on every rank alike.
  validate_training(world.size(), config);
  // D replicas of S stages of P ranks (MeshLayout): each replica trains the model on its b/D
  // sequences, cut into M micro-batches that pass through its stages as the schedule orders
  // them; the mean of the replicas' gradients is the gradient of the global batch's mean loss.
  const gpt::GptShape& shape = config.shape;
  const verify::HostArrays initial = initial_parameters(shape, config.seed, config.logit_offset);
  // Every rank trains the (small) reference too, on the whole batch, so each reaches the
  // verdict on its own.
  ReferenceTraining reference(shape, initial, config.optimizer, config.clip,
                              config.options.training.dropout);
  PipelinedGpt gpt(world, device, config, initial);
  const MeshLayout& mesh = gpt.mesh();
  gpt::GptModel& model = gpt.model();
  const std::vector<TensorPlacement>& placements = gpt.placements();
  const std::int64_t m = shape.block.tokens();
  ShardedOptimizer optimizer(device, model.parameters(), config.optimizer);
  // what the optimizer keeps from step to step: bf16's f32 masters, or the parameters
  const TensorMap& kept = optimizer.masters().empty() ? model.parameters() : optimizer.masters();
  UpdateAudit audit(device, config.optimizer);
  TransferMismatch transfer_mismatch;
  const std::vector<std::string> gradient_names = [&] {
    std::vector<std::string> names;
    for (const std::string& name : sorted_parameter_names(shape))
      names.push_back(gradient_name(name));
    return names;
  }();

  TrainResult result;
  result.config = config;
  result.world_size = world.size();
  result.padded_vocab = gpt.padded().vocab;
  result.grid = training_grid(world.size(), config);
  result.tolerance = loss_tolerance(config.dtype, config.optimizer.kind);
  std::vector<std::uint64_t> loss_bits;
  CpuDevice host;
  std::vector<std::int64_t> kept_by_step;
  device.allocations().reset_peak();
  for (std::int64_t step = 0; step < config.steps; ++step) {
    const Batch batch = synthetic_batch(shape, config.seed, step);
    world.counters().reset();
    TraceScope traced(device.trace(), fmt::format("step {}", step), "step",
                      {{"series", "train"}, {"index", step}, {"timed", true}});
    const auto start = Clock::now();
    // summed over the micro-batches in the masters' dtype (bf16: f32, as Megatron-LM's bf16
    // optimizer keeps them, its main_grad) and averaged over the replicas, before they are
    // measured and clipped
    const pipeline::StageStepRecord stage_step = gpt.step(batch, step);
    kept_by_step.push_back(stage_step.kept_bytes);
    const StageTransfers moved = transfers_counted(world.counters());
    if (transfer_mismatch.step < 0 && moved != gpt.modelled_transfers()) {
      transfer_mismatch = {step, moved};
    }
    const TensorMap& gradients = model.gradients();
    StepRecord record;
    // every element once: each rank counts the shards no lower rank holds
    record.gradient_norm = gradient_norm_in_name_order(world, device, gradients, placements,
                                                       gradient_names, mesh, shape);
    if (config.clip > 0) {
      scale_gradients(device, gradients, clip_coefficient(record.gradient_norm, config.clip));
    }
    // the audit's host copies are left out of the step's time
    const auto audit_start = Clock::now();
    audit.before(kept, gradients, optimizer.state(), step);
    const auto audited = Clock::now() - audit_start;
    optimizer.step(model.parameters(), gradients);
    const auto step_end = Clock::now();
    audit.after(kept, placements, world.rank());
    traced.close();
    Tensor times = host.empty({2}, DType::f64);
    times.data_as<double>()[0] = std::chrono::duration<double>(step_end - start - audited).count();
    times.data_as<double>()[1] = world.counters().total_exposed_seconds();

    record.step = step;
    record.loss = gpt.mean_loss();
    world.all_reduce(times, ReduceOp::max);
    record.seconds = times.data_as<double>()[0];
    record.comm_seconds = times.data_as<double>()[1];
    record.tokens_per_second = static_cast<double>(m) / record.seconds;
    record.stage_idle_share = stage_idle_shares(world, mesh, stage_step);
    record.non_finite = first_non_finite(world, mesh, stage_step.non_finite);
    // the gradient the optimizer applied, however the model was laid out
    record.gradient_fingerprint = layout_fingerprint(
        ShardHashes(world, device, gradients, gradient_names), gradient_names, mesh, shape);
    const ReferenceStep expected = reference.step(batch);
    record.reference_loss = expected.loss;
    record.reference_gradient_norm = expected.gradient_norm;
    record_step(record, result);
    loss_bits.push_back(std::bit_cast<std::uint64_t>(record.loss));
    if (on_step) on_step(result);
  }
  result.loss_hash = fnv1a(loss_bits);
  const verify::MemoryBreakdown memory =
      gpt.memory(*std::max_element(kept_by_step.begin(), kept_by_step.end()), &optimizer);
  // a step that kept other bytes than the first says more than the model's comparison would
  result.transfers_differ = transfer_difference(world, transfer_mismatch, gpt.modelled_transfers());
  result.memory_differs = kept_changes(world, kept_by_step);
  if (result.memory_differs.empty()) {
    result.memory_differs = verify::first_difference_from_model(world, memory);
  }
  result.memory = verify::largest_over_ranks(world, memory);
  result.replicas_differ =
      check_replicas(world, device, model.parameters(), placements, mesh, shape, result);
  if (result.replicas_differ.empty() && !optimizer.masters().empty()) {
    // bf16's f32 masters are the training's state: their replicas must agree too (the same on
    // every rank: the comparison is over every rank's hashes)
    TrainResult masters;  // its hash and counts are not the run's
    const std::string differ =
        check_replicas(world, device, optimizer.masters(), placements, mesh, shape, masters);
    if (!differ.empty()) result.replicas_differ = "the f32 master of " + differ;
  }
  if (gpt.padded().vocab > shape.vocab) {
    result.padding_touched =
        padding_problem(world, device, model.parameters(), placements, shape.vocab);
  }
  // what the optimizer kept (bf16: its f32 masters) against the reference's parameters
  result.lost_update_share = audit.lost_share(world);
  result.parameter_drift =
      parameter_drift(world, device, kept,
                      padded_parameters(reference.parameters(), shape.vocab, gpt.padded().vocab),
                      padded_parameters(initial, shape.vocab, gpt.padded().vocab), placements);
  result.parameter_drift_bound = parameter_drift_bound(config.dtype, config.optimizer.kind);
  result.diverged = training_divergence(result.steps, result.tolerance);
  result.pass = within_tolerance(result) && result.replicas_differ.empty() &&
                result.padding_touched.empty() && result.memory_differs.empty() &&
                result.transfers_differ.empty() && drift_within_bound(result) && !result.diverged;
  return result;
}

nlohmann::json to_json(const TrainResult& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps) {
    steps.push_back(
        {{"step", s.step},
         {"loss", s.loss},
         {"reference_loss", s.reference_loss},
         {"relative_difference", s.relative_difference},
         {"gradient_norm", s.gradient_norm},
         {"reference_gradient_norm", s.reference_gradient_norm},
         {"seconds", s.seconds},
         {"comm_seconds", s.comm_seconds},
         {"tokens_per_second", s.tokens_per_second},
         {"gradient_fingerprint", fmt::format("{:016x}", s.gradient_fingerprint)},
         {"stage_idle_share", s.stage_idle_share},
         {"non_finite", s.non_finite.empty() ? nlohmann::json() : nlohmann::json(s.non_finite)}});
  }
  const auto& c = r.config;
  nlohmann::json diverged = nullptr;
  if (r.diverged) {
    diverged = {{"parallel_step", r.diverged->parallel_step},
                {"reference_step", r.diverged->reference_step}};
  }
  nlohmann::json j = {
      {"scheme", c.scheme},
      {"np", r.world_size},
      {"dp", c.options.dp},
      {"dp_buckets", name_in(kGradientBucketNames, c.options.dp_buckets)},
      {"pp", c.options.pp},
      {"micro_batches", c.options.micro_batches},
      {"schedule", schedule_name(c.options.schedule)},
      {"bubble_formula", pipeline::bubble_fraction(c.options.pp, c.options.micro_batches)},
      {"regather", c.options.regather},
      {"grid", r.grid},
      {"dtype", std::string(dtype_name(c.dtype))},
      {"shape",
       {{"b", c.shape.block.b},
        {"s", c.shape.block.s},
        {"h", c.shape.block.h},
        {"heads", c.shape.block.heads},
        {"vocab", c.shape.vocab},
        {"layers", c.shape.layers}}},
      {"seed", c.seed},
      {"optimizer",
       {{"kind", std::string(optimizer_name(c.optimizer.kind))},
        {"learning_rate", c.optimizer.learning_rate},
        {"beta1", c.optimizer.beta1},
        {"beta2", c.optimizer.beta2},
        {"eps", c.optimizer.eps},
        {"weight_decay", c.optimizer.weight_decay}}},
      {"learning_rate", c.optimizer.learning_rate},
      {"clip", c.clip},
      {"padded_vocab", r.padded_vocab},
      {"max_norm_relative_difference", r.max_norm_relative_difference},
      {"padding_untouched", r.padding_touched.empty()},
      {"masters", r.config.optimizer.masters},
      {"parameter_drift",
       std::isfinite(r.parameter_drift) ? nlohmann::json(r.parameter_drift) : nullptr},
      {"parameter_drift_bound", r.parameter_drift_bound},
      {"lost_update_share",
       std::isfinite(r.lost_update_share) ? nlohmann::json(r.lost_update_share) : nullptr},
      {"lost_update_bound", kLostUpdateBound},
      {"logit_offset", c.logit_offset},
      {"tolerance", r.tolerance.rtol},
      {"tolerance_abs", r.tolerance.atol},
      {"tolerance_first_step", r.tolerance.first_rtol},
      {"norm_judged_after_first_step", r.tolerance.norm_after_first},
      {"max_relative_difference", r.max_relative_difference},
      {"replicated_parameters", r.replicated_parameters},
      {"replicas_identical", r.replicas_differ.empty()},
      {"transfers_as_modelled", r.transfers_differ.empty()},
      {"transfers_difference",
       r.transfers_differ.empty() ? nlohmann::json() : nlohmann::json(r.transfers_differ)},
      {"loss_hash", fmt::format("{:016x}", r.loss_hash)},
      {"parameter_hash", fmt::format("{:016x}", r.parameter_hash)},
      {"parameter_fingerprint", fmt::format("{:016x}", r.parameter_fingerprint)},
      {"pass", r.pass},
      {"diverged", diverged},
      {"steps_planned", c.steps},
      {"steps", steps}};
  j.update(block_training_json(c.options.training));
  if (r.memory) {  // a run cut short has none
    j["memory"] = verify::to_json(*r.memory);
    j["memory"]["as_modelled"] = r.memory_differs.empty();
    if (!r.memory_differs.empty()) j["memory"]["first_difference"] = r.memory_differs;
  }
  return j;
}

}  // namespace tplab::train
