/// @file
/// The training harness: the GPT on one scheme for K steps beside the single-device reference.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "divergence.hpp"
#include "gpt/gpt_shape.hpp"
#include "loss_tolerance.hpp"
#include "memory_breakdown.hpp"
#include "optim/sharded_optimizer.hpp"
#include "scheme/scheme.hpp"

namespace tplab::train {

/// One training run.
struct TrainConfig {
  std::string scheme = "1d";                             ///< a name of scheme_names()
  SchemeOptions options;                                 ///< 2.5D's depth, 3D's regather
  gpt::GptShape shape{BlockShape{4, 16, 32, 4}, 64, 2};  ///< blocks, V and L
  DType dtype = DType::f64;                              ///< of the parallel model
  std::uint64_t seed = 1;                                ///< of the parameters and the data
  std::int64_t steps = 30;                               ///< optimizer steps K
  OptimizerConfig optimizer;                             ///< SGD or AdamW, and its lr
  /// Clip the gradient to this global norm before each update (0: never clip): the norm of
  /// every element of the model, each counted once however many ranks hold it.
  double clip = 0;
  /// The same for every entry of b_head at the start, so every logit of a token shares it: a
  /// log-sum-exp without the shift by its row's maximum overflows past 709.8 (f64) or 88.7
  /// (f32), while the loss and every gradient are as at 0 in exact arithmetic (the gradient of
  /// b_head sums to 0 over the vocabulary, so SGD keeps the offset).
  double logit_offset = 0;
};

/// One step, complete on every rank.
struct StepRecord {
  std::int64_t step = 0;               ///< from 0
  double loss = 0;                     ///< the parallel model's mean loss before this step's update
  double reference_loss = 0;           ///< the reference's, in f64
  double relative_difference = 0;      ///< |loss - reference| / |reference|
  double gradient_norm = 0;            ///< the global gradient norm (before clipping, with --clip)
  double reference_gradient_norm = 0;  ///< the reference's
  double norm_relative_difference = 0;  ///< |norm - reference| / |reference|
  double seconds = 0;                   ///< forward, backward and update, on the slowest rank
  /// Of which blocked in communication (collectives, and receives from a neighbouring stage;
  /// a started call counts while it was waited for), on the rank that spent most there.
  double comm_seconds = 0;
  double tokens_per_second = 0;  ///< m / seconds
  /// FNV-1a of the gradient the optimizer applied (summed over micro-batches and replicas,
  /// clipped), over one replica's tensor-parallel ranks whatever the stages and replicas: two
  /// runs of the same scheme on the same tensor-parallel ranks compare bit for bit by it.
  std::uint64_t gradient_fingerprint = 0;
  /// Each pipeline stage's share of the step spent waiting rather than computing (its forwards
  /// and backwards): the bubble, and the transfers. One entry without a pipeline.
  std::vector<double> stage_idle_share;
  /// Where the step's first NaN or Inf appeared (first_non_finite: the stage, the rank and the
  /// pass), or empty when every value was finite.
  std::string non_finite;
};

/// What a run found, complete on every rank.
struct TrainResult {
  TrainConfig config;                  ///< what was run
  int world_size = 0;                  ///< ranks
  std::int64_t padded_vocab = 0;       ///< V padded to a multiple of its parts (V when it was)
  std::string grid;                    ///< e.g. "q=2 d=2"
  std::vector<StepRecord> steps;       ///< one per step
  LossTolerance tolerance;             ///< loss_tolerance(dtype, optimizer)
  double max_relative_difference = 0;  ///< over every step (NaN when a loss was NaN)
  /// Of the gradient norm against the reference's, over every step.
  double max_norm_relative_difference = 0;
  int replicated_parameters = 0;     ///< parameters whose shards repeat on several ranks
  std::string replicas_differ;       ///< empty, or the first parameter whose replicas differ
  std::string padding_touched;       ///< empty, or where a padded id's parameter moved
  std::uint64_t loss_hash = 0;       ///< FNV-1a of the bits of the loss curve
  std::uint64_t parameter_hash = 0;  ///< FNV-1a of every rank's final parameter shards' hashes
  /// The final parameters' fingerprint, as StepRecord::gradient_fingerprint's: the same for the
  /// same bits on any number of stages and replicas.
  std::uint64_t parameter_fingerprint = 0;
  std::optional<Divergence> diverged;  ///< where both curves diverged (divergence.hpp), if they did
  /// The rank's memory by kind after the last step, the largest of any rank: parameters,
  /// gradients and optimizer state beside what the placements and the optimizer's rule say
  /// they hold; what the steps kept for backward (GptModel::kept_bytes, the most of any step)
  /// beside the cost model's (model::gpt_activation_elements); the allocator's peak over the
  /// run (the launcher adds the process's, VmHWM). None until the last step has run.
  std::optional<verify::MemoryBreakdown> memory;
  /// Empty, or the first step of a rank that kept other bytes for backward than its first
  /// step did, or else the first rank and kind whose measured memory is not its model's.
  std::string memory_differs;
  /// ||theta - theta_ref|| / ||theta_ref - theta_0|| after the last step (parameter_drift.hpp):
  /// how far the parameters the optimizer kept (bf16's f32 masters) ended from the reference's,
  /// against how far training moved them; NaN until the last step has run.
  double parameter_drift = NAN;
  /// The most it may be (parameter_drift_bound: bf16's), or 0 where it is not judged.
  double parameter_drift_bound = 0;
  /// The share of the optimizer's updates the parameters it keeps lost over the run
  /// (UpdateAudit); at most kLostUpdateBound. NaN until the last step has run.
  double lost_update_share = NAN;
  /// Empty, or the first rank and step whose point-to-point calls or bytes between pipeline
  /// stages (the counters' group "pp") were not the cost model's (model::pipeline_transfers).
  std::string transfers_differ;
  /// Every step's loss (and norm) within tolerance, replicas identical, the padding untouched,
  /// every rank's memory and transfers between stages as the model says, the parameters within
  /// their drift bound, the optimizer's updates kept, and the training did not diverge.
  bool pass = false;
};

/// Throws UsageError, the same on every rank and before any collective, unless the run can
/// go ahead on `world_size` ranks (the scheme's rules on the padded vocabulary, steps >= 1, a
/// positive learning rate, AdamW's betas in [0, 1), eps > 0, weight decay >= 0, a clip >= 0,
/// dtype f64, f32 or bf16).
void validate_training(int world_size, const TrainConfig& config);

/// Bytes one rank of a training run needs, about: every rank trains the reference in f64
/// beside its shards of the parallel model (at most as large again): per block what verify's
/// rank holds (verify_bytes_per_rank), and the embedding, LM head, logits and their gradients,
/// and with AdamW the two moments of every parameter.
double training_bytes_per_rank(const TrainConfig& config);

/// The model FLOPs of one optimizer step of `config`'s GPT, forward and backward over its b
/// sequences: L blocks and the LM head, as `model --plan` counts them (plan/gpt_model.hpp).
double model_flops_per_step(const TrainConfig& config);

/// The training's grid as the scheme's with data parallelism reads ("dp=2 t=2"), with "pp=S" before
/// the scheme's own with stages ("dp=2 pp=2 t=2"), as placements prints it.
std::string training_grid(int world_size, const TrainConfig& config);

/// The vocabulary of a training's parallel model.
struct VocabPadding {
  std::int64_t parts = 0;   ///< what its layout splits it into on one replica's ranks
  std::int64_t padded = 0;  ///< V rounded up to a multiple of parts (gpt::padded_vocab)
};

/// The vocabulary the parallel model of `config` holds on `world_size` ranks.
VocabPadding training_vocab_padding(int world_size, const TrainConfig& config);

/// Trains the GPT on `world` for config.steps steps and the reference beside it; calls
/// `on_step` with the run so far as soon as each step is known (on every rank): every step up
/// to that one in `steps` (the newest last), `pass` false until the end. Collective over
/// `world`.
TrainResult run_training(Comm& world, Device& device, const TrainConfig& config,
                         const std::function<void(const TrainResult&)>& on_step = {});

/// The training as train's --json writes it: the configuration, the verdict, the hashes and
/// every step finished ("steps", fewer than "steps_planned" in a run cut short).
nlohmann::json to_json(const TrainResult& r);

}  // namespace tplab::train
