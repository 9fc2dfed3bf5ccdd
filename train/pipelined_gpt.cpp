#include "pipelined_gpt.hpp"

#include <fmt/format.h>

#include <numeric>
#include <optional>
#include <tuple>

#include "device/cpu_device.hpp"
#include "gpt_activations.hpp"
#include "mesh/gradient_reduction.hpp"
#include "pipeline/pipeline_problem.hpp"
#include "pipeline_transfers.hpp"
#include "registry/make_scheme.hpp"
#include "vocab_padding.hpp"

namespace tplab::train {
namespace {

/// This rank's slice of the global batch: its replica's `tokens` tokens from `token0` on, cut
/// into `micro_batches` micro-batches of consecutive sequences.
std::vector<pipeline::MicroBatch> micro_batches_of(const Batch& global, std::int64_t token0,
                                                   std::int64_t tokens, int micro_batches) {
  std::vector<pipeline::MicroBatch> out;
  const std::int64_t each = tokens / micro_batches;
  for (int i = 0; i < micro_batches; ++i) {
    const std::int64_t first = token0 + i * each;
    const auto slice = [&](const std::vector<std::int64_t>& all) {
      return std::vector<std::int64_t>(all.begin() + first, all.begin() + first + each);
    };
    out.push_back({slice(global.ids), slice(global.targets)});
  }
  return out;
}

}  // namespace

PipelinedGpt::PipelinedGpt(Comm& world, Device& device, const TrainConfig& config,
                           const verify::HostArrays& initial)
    : world_(world),
      device_(device),
      config_(config),
      mesh_(mesh_of(config.options, world.size())) {
  const gpt::GptShape& shape = config.shape;
  const gpt::GptStage stage{.stage = mesh_.stage_of(world.rank()), .stages = mesh_.stages};
  // The parallel model's vocabulary is padded to a multiple of its parts; the reference's not.
  padded_ = shape;
  padded_.vocab = training_vocab_padding(world.size(), config).padded;
  micro_ = pipeline::micro_batch_shape(padded_, config.options);
  const int micro_batches = config.options.micro_batches;
  const std::int64_t replica_m = micro_.block.tokens() * micro_batches;
  replica_token0_ = mesh_.replica_of(world.rank()) * replica_m;
  // Each micro-batch's blocks draw the whole batch's dropout masks for its own sequences.
  std::vector<const Scheme*> micro_scheme_of;
  for (int i = 0; i < micro_batches; ++i) {
    SchemeOptions options =
        replica_options_of_rank(config.options, mesh_, world.rank(), shape.block);
    options.training.first_sequence += i * micro_.block.b;
    micro_schemes_.push_back(make_scheme(config.scheme, options));
    micro_scheme_of.push_back(micro_schemes_.back().get());
  }
  layout_ = gpt::make_gpt_layout(config.scheme, replica_options(config.options));
  placements_ = mesh_placements(
      gpt::gpt_parameter_placements(*micro_schemes_.front(), *layout_, mesh_.scheme_ranks, micro_),
      mesh_, replica_m,
      [&](std::string_view tensor) { return gpt::stage_holding(tensor, shape, mesh_.stages); });

  TensorMap shards;  // this stage's
  for (const auto& [name, array] : padded_parameters(initial, shape.vocab, padded_.vocab)) {
    if (gpt::stage_holding(name, shape, mesh_.stages) != stage.stage) continue;
    shards.emplace(name, verify::upload_shard(device, array, find_placement(placements_, name),
                                              world.rank(), config.dtype));
  }
  if (mesh_.replicas > 1 || mesh_.stages > 1) comms_ = split_mesh(world, mesh_);
  Comm& stage_world = comms_.replica ? *comms_.replica : world;
  model_ = std::make_unique<gpt::GptModel>(stage_world, device, micro_scheme_of, *layout_, micro_,
                                           std::move(shards), shape.vocab, stage,
                                           master_dtype(config.dtype));
  actions_ =
      pipeline::stage_actions(config.options.schedule, mesh_.stages, stage.stage, micro_batches);
  const model::PipelineTransfers transfers =
      model::pipeline_transfers(config.scheme, replica_options(config.options), mesh_.scheme_ranks,
                                micro_, mesh_.scheme_rank_of(world.rank()), stage, micro_batches);
  modelled_transfers_ = {
      .calls = transfers.sends + transfers.receives,
      .bytes = transfers.elements() * static_cast<std::int64_t>(dtype_size(config.dtype))};
}

StageTransfers transfers_counted(const CommCounters& counters) {
  const GroupTotals pp = counters.group_totals(kPipelineGroup);
  return {.calls = pp.calls, .bytes = pp.bytes};
}

std::string transfer_difference(Comm& world, const TransferMismatch& mine,
                                const StageTransfers& model) {
  CpuDevice host;
  Tensor sent = host.zeros({5}, DType::f64);  // step + 1 (0: none), calls, bytes, the model's
  double* v = sent.data_as<double>();
  v[0] = static_cast<double>(mine.step + 1);
  v[1] = static_cast<double>(mine.counted.calls);
  v[2] = static_cast<double>(mine.counted.bytes);
  v[3] = static_cast<double>(model.calls);
  v[4] = static_cast<double>(model.bytes);
  Tensor all = host.empty({world.size() * 5}, DType::f64);
  world.all_gather(sent, all);
  for (int r = 0; r < world.size(); ++r) {
    const double* w = all.data_as<double>() + 5 * r;
    if (w[0] > 0) {
      return fmt::format(
          "rank {}: step {} made {:.0f} point-to-point calls of {:.0f} bytes between stages, "
          "the model {:.0f} of {:.0f} (M sends and M receives per neighbour, each the rank's "
          "shard of x)",
          r, w[0] - 1, w[1], w[2], w[3], w[4]);
    }
  }
  return {};
}

pipeline::StageStepRecord PipelinedGpt::step(const Batch& batch, std::int64_t step) {
  const std::vector<pipeline::MicroBatch> mine =
      micro_batches_of(batch, replica_token0_, micro_.block.tokens() * model_->micro_batches(),
                       model_->micro_batches());
  const pipeline::StageStepRecord record =
      pipeline::run_stage_step(*model_, comms_.pp.get(), device_, config_.dtype, actions_, mine,
                               static_cast<std::uint32_t>(step));
  if (mesh_.replicas > 1) {
    reduce_over_replicas(*comms_.dp, device_, model_->gradients(), config_.options.dp_buckets,
                         ReplicaReduction::mean);
  }
  return record;
}

double PipelinedGpt::mean_loss() const {
  // On the last stage, one rank of each vocabulary group of each replica puts its rows' losses
  // of every micro-batch into an [m] vector of zeros, micro-batch i's from its first token on,
  // and a sum over the world assembles it (each element has one non-zero term, so the sum is
  // exact); the mean is then taken in token order, whatever the layout.
  const std::int64_t tokens = config_.shape.block.tokens();
  const std::int64_t micro_tokens = micro_.block.tokens();
  CpuDevice host;
  Tensor all = host.zeros({tokens}, DType::f64);
  if (model_->counts_loss()) {
    for (int i = 0; i < model_->micro_batches(); ++i) {
      const std::vector<double>& losses = model_->losses(i);
      std::copy(
          losses.begin(), losses.end(),
          all.data_as<double>() + replica_token0_ + i * micro_tokens + model_->loss_block().row0);
    }
  }
  world_.all_reduce(all);
  double sum = 0;
  for (std::int64_t t = 0; t < tokens; ++t) sum += all.data_as<double>()[t];
  return sum / static_cast<double>(tokens);
}

verify::MemoryBreakdown PipelinedGpt::memory(std::int64_t kept,
                                             const ShardedOptimizer* optimizer) const {
  std::int64_t elements = 0;  // of this rank's parameter shards, as the placements cut them
  for (const auto& [name, tensor] : model_->parameters()) {
    const Extents local = find_placement(placements_, name).local_extents(world_.rank());
    std::int64_t n = 1;
    for (std::int64_t e : local) n *= e;
    elements += n;
  }
  const auto size = static_cast<std::int64_t>(dtype_size(config_.dtype));
  const auto master = static_cast<std::int64_t>(dtype_size(master_dtype(config_.dtype)));
  verify::MemoryBreakdown memory;
  memory.parameters = {verify::tensor_bytes(model_->parameters()), elements * size};
  // the gradients are summed over the micro-batches in the masters' dtype (f32 for bf16)
  memory.gradients = {verify::tensor_bytes(model_->gradients()), elements * master};
  memory.optimizer = {0, 0};
  if (optimizer != nullptr) {
    // AdamW: two moments per element in the master dtype; bf16: the f32 masters besides
    memory.optimizer = {
        verify::tensor_bytes(optimizer->state()) + verify::tensor_bytes(optimizer->masters()),
        (config_.optimizer.kind == OptimizerKind::adamw ? 2 * elements * master : 0) +
            (master != size ? elements * master : 0)};
  }
  // the stage's blocks and parts for one micro-batch, times the micro-batches in flight at once
  memory.activations = {
      kept, pipeline::most_in_flight(actions_) *
                model::gpt_activation_elements(
                    config_.scheme, replica_options(config_.options), mesh_.scheme_ranks, micro_,
                    mesh_.scheme_rank_of(world_.rank()), model_->stage()) *
                size};
  memory.peak_allocated = static_cast<std::int64_t>(device_.allocations().peak_bytes());
  return memory;
}

std::string first_non_finite(Comm& world, const MeshLayout& mesh, const pipeline::NonFinite& mine) {
  using Kind = pipeline::NonFinite::Kind;
  using Pass = pipeline::StageAction::Pass;
  CpuDevice host;
  Tensor sent = host.empty({3}, DType::f64);  // kind, pass, micro-batch
  sent.data_as<double>()[0] = static_cast<double>(mine.kind);
  sent.data_as<double>()[1] = static_cast<double>(mine.action.pass);
  sent.data_as<double>()[2] = mine.action.micro;
  Tensor all = host.empty({3 * world.size()}, DType::f64);
  world.all_gather(sent, all);
  // the order values flow in: F(i) stage by stage, then B(i) from the last stage back, then the
  // parameter gradients; within one pass of one stage, a rank that received the NaN before one
  // that made it (a tensor-parallel collective spreads it over the stage's ranks)
  using Key = std::tuple<int, int, int, int, int>;  // (phase, micro, place, kind, rank)
  std::optional<Key> first;
  for (int r = 0; r < world.size(); ++r) {
    const double* v = all.data_as<double>() + 3 * r;
    const auto kind = static_cast<Kind>(v[0]);
    if (kind == Kind::none) continue;
    const int stage = mesh.stage_of(r);
    const bool forward = static_cast<Pass>(v[1]) == Pass::forward;
    const Key key = kind == Kind::gradient
                        ? Key{2, 0, stage, 0, r}
                        : Key{forward ? 0 : 1, static_cast<int>(v[2]),
                              forward ? stage : mesh.stages - 1 - stage, static_cast<int>(kind), r};
    if (!first || key < *first) first = key;
  }
  if (!first) return {};
  const int rank = std::get<4>(*first), stage = mesh.stage_of(rank);
  const double* v = all.data_as<double>() + 3 * rank;
  const auto kind = static_cast<Kind>(v[0]);
  const bool forward = static_cast<Pass>(v[1]) == Pass::forward;
  const std::string where =
      fmt::format("pipeline stage {} of {} (rank {})", stage, mesh.stages, rank);
  const std::string pass = fmt::format("{}{}", forward ? 'F' : 'B', static_cast<int>(v[2]));
  switch (kind) {
    case Kind::arrived:
      return fmt::format(
          "{}, {}: its {} from stage {} held a NaN or Inf on arrival, though that stage sent "
          "finite values: the transfer between them",
          where, pass, forward ? "input" : "output's gradient", forward ? stage - 1 : stage + 1);
    case Kind::made:
      return fmt::format("{}, {}: it made a NaN or Inf from finite inputs", where, pass);
    case Kind::loss:
      return fmt::format("{}, {}: its loss is not finite, from finite inputs", where, pass);
    default:
      return fmt::format(
          "{}: its parameter gradients hold a NaN or Inf, though every activation and gradient "
          "it received and sent was finite",
          where);
  }
}

std::vector<std::vector<double>> values_by_stage(Comm& world, const MeshLayout& mesh,
                                                 double value) {
  CpuDevice host;
  Tensor sent = host.empty({1}, DType::f64);
  sent.data_as<double>()[0] = value;
  Tensor all = host.empty({world.size()}, DType::f64);
  world.all_gather(sent, all);
  std::vector<std::vector<double>> values(static_cast<std::size_t>(mesh.stages));
  for (int r = 0; r < world.size(); ++r) {
    values[static_cast<std::size_t>(mesh.stage_of(r))].push_back(all.data_as<double>()[r]);
  }
  return values;
}

std::vector<double> stage_idle_shares(Comm& world, const MeshLayout& mesh,
                                      const pipeline::StageStepRecord& mine) {
  const double idle = mine.seconds > 0 ? 1.0 - mine.busy_seconds / mine.seconds : 0.0;
  std::vector<double> shares;
  for (const std::vector<double>& stage : values_by_stage(world, mesh, idle)) {
    shares.push_back(std::accumulate(stage.begin(), stage.end(), 0.0) /
                     static_cast<double>(stage.size()));
  }
  return shares;
}

}  // namespace tplab::train
