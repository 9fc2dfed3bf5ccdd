/// @file
/// PipelinedGpt: one rank's part of the GPT a training run trains, laid out on its mesh and
/// ready to step; training (run_training) and bench's pipelined step run the same one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm/comm_counters.hpp"
#include "device/device.hpp"
#include "gpt/gpt_layout.hpp"
#include "gpt/gpt_model.hpp"
#include "harness.hpp"
#include "memory_breakdown.hpp"
#include "mesh/mesh_layout.hpp"
#include "optim/sharded_optimizer.hpp"
#include "pipeline/stage_actions.hpp"
#include "pipeline/stage_step.hpp"
#include "trainer.hpp"
#include "training_data.hpp"

namespace tplab::train {

/// A rank's point-to-point calls between pipeline stages in one step, and their bytes.
struct StageTransfers {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;
  bool operator==(const StageTransfers&) const = default;  ///< the same calls and bytes
};

/// What `counters` counted on the PP groups (kPipelineGroup) since they were reset.
StageTransfers transfers_counted(const CommCounters& counters);

/// A step whose transfers between stages on this rank were not the model's, and what they were.
struct TransferMismatch {
  std::int64_t step = -1;  ///< -1: every step's were the model's
  StageTransfers counted;
};

/// Empty when every rank's point-to-point calls and bytes between stages were, in every step,
/// what the model says (`model`: this rank's, PipelinedGpt::modelled_transfers); otherwise the
/// lowest such rank's first such step. Collective.
std::string transfer_difference(Comm& world, const TransferMismatch& mine,
                                const StageTransfers& model);

/// D replicas of S stages of one scheme's ranks (MeshLayout, world rank = (replica x S +
/// stage) x P + scheme rank): this rank holds its stage's shards of the initial parameters,
/// its replica's slice of every batch (b/D sequences, cut into M micro-batches), the mesh's
/// communicators and the order its schedule runs the micro-batches in.
class PipelinedGpt {
 public:
  /// Lays out the GPT of `config` from `initial` (the global parameters, vocabulary unpadded).
  /// `config` must have passed validate_training. Collective over `world`.
  PipelinedGpt(Comm& world, Device& device, const TrainConfig& config,
               const verify::HostArrays& initial);

  /// One step's forward and backward: this replica's micro-batches of the global `batch`
  /// through this stage in the schedule's order, their gradients summed (in the masters' dtype)
  /// into model().gradients() and, with D > 1 replicas, averaged over the replicas.
  pipeline::StageStepRecord step(const Batch& batch, std::int64_t step);

  /// The mean loss of the last step over all m tokens of the global batch, the same on every
  /// rank. Collective.
  double mean_loss() const;

  /// The mesh the world is cut into.
  const MeshLayout& mesh() const { return mesh_; }
  /// This rank's part of the model.
  gpt::GptModel& model() { return *model_; }
  /// The parallel model's shape: the vocabulary padded to a multiple of its parts.
  const gpt::GptShape& padded() const { return padded_; }
  /// The shape of one micro-batch (b / (D M) sequences), padded as padded().
  const gpt::GptShape& micro() const { return micro_; }
  /// The first token of this rank's replica in the global batch.
  std::int64_t replica_token0() const { return replica_token0_; }
  /// Where every parameter's shards lie on the world's ranks.
  const std::vector<TensorPlacement>& placements() const { return placements_; }
  /// This stage's forwards and backwards in the schedule's order.
  const std::vector<pipeline::StageAction>& actions() const { return actions_; }
  /// What the cost model says this rank sends and receives between stages in every step
  /// (model::pipeline_transfers), its bytes in the run's dtype: what transfers_counted must
  /// find after each step.
  const StageTransfers& modelled_transfers() const { return modelled_transfers_; }

  /// What this rank holds by kind beside what its shards' placements, the optimizer's rule
  /// and the cost model say it holds: parameters, gradients (in the masters' dtype), the
  /// optimizer's state (none without `optimizer`), `kept` bytes kept for backward beside the
  /// micro-batches in flight at once times one micro-batch's (model::gpt_activation_elements),
  /// and the allocator's peak.
  verify::MemoryBreakdown memory(std::int64_t kept, const ShardedOptimizer* optimizer) const;

 private:
  Comm& world_;
  Device& device_;
  TrainConfig config_;
  MeshLayout mesh_;
  gpt::GptShape padded_;
  gpt::GptShape micro_;
  std::int64_t replica_token0_ = 0;
  std::vector<std::unique_ptr<Scheme>> micro_schemes_;  ///< micro-batch i's, its dropout's start
  std::unique_ptr<gpt::GptLayout> layout_;
  std::vector<TensorPlacement> placements_;
  MeshComms comms_;
  std::unique_ptr<gpt::GptModel> model_;
  std::vector<pipeline::StageAction> actions_;
  StageTransfers modelled_transfers_;
};

/// Every rank's `value`, gathered: values[s] holds the values of stage s's ranks, in rank order.
/// Collective.
std::vector<std::vector<double>> values_by_stage(Comm& world, const MeshLayout& mesh, double value);

/// Each stage's share of its step spent not computing (waiting for a neighbour: the bubble, and
/// the transfers), the mean over the stage's ranks of 1 - busy / step (StageStepRecord).
/// Collective.
std::vector<double> stage_idle_shares(Comm& world, const MeshLayout& mesh,
                                      const pipeline::StageStepRecord& mine);

/// Where the first NaN or Inf of a step appeared, from every rank's record of it
/// (StageStepRecord::non_finite): empty when none did; otherwise the stage, the lowest rank
/// that saw it first and the pass, in the order values flow through a step (the forwards from
/// the first stage on, then the backwards from the last stage back, then the parameter
/// gradients), such as "pipeline stage 1 of 2 (rank 2), F0: it made a NaN or Inf from finite
/// inputs". Collective.
std::string first_non_finite(Comm& world, const MeshLayout& mesh, const pipeline::NonFinite& mine);

}  // namespace tplab::train
