/// @file
/// Timing one step of the pipelined GPT: the forward and backward of every micro-batch through
/// every stage in the schedule's order, and the gradients' reduction over the replicas, with
/// each stage's idle share (the bubble) beside the formula and each stage's kept bytes beside
/// the model's.
#pragma once

#include <cstdint>
#include <vector>

#include "step_timer.hpp"
#include "trainer.hpp"

namespace tplab::bench {

/// What to time: a training run's GPT (its scheme, mesh with --pp, --micro-batches,
/// --schedule and --dp, shape, dtype and seed), without its optimizer or its reference.
struct PipelineStepConfig {
  train::TrainConfig train;  ///< the GPT, its mesh and data (its optimizer and steps unused)
  int warmup = 1;            ///< untimed steps before the timed ones
  int repeats = 5;           ///< timed steps
};

/// One pipeline stage of a timed step.
struct StageTiming {
  /// The share of the step its ranks spent not computing (waiting for a neighbour: the bubble,
  /// and the transfers): the median over the timed steps of its ranks' mean.
  double idle_share = 0;
  /// The most bytes any of its ranks held for backward at once (StageStepRecord::kept_bytes).
  std::int64_t kept_bytes = 0;
  /// The cost model's: the micro-batches in flight at once (most_in_flight) x what one
  /// micro-batch keeps (model::gpt_activation_elements), the most of its ranks.
  std::int64_t model_kept_bytes = 0;
  int in_flight = 0;  ///< most_in_flight of its schedule: M (GPipe) or min(S - s, M) (1F1B)
};

/// The timing of one pipelined step: `step` as the block's (its config's shape is the global
/// block; its flops the GPT's, model_flops_per_step; its memory the largest rank's, the
/// optimizer's state 0), and the stages.
struct PipelineTiming {
  StepTiming step;                  ///< the step, as the block's step reports it
  std::int64_t layers = 0;          ///< L
  std::int64_t vocab = 0;           ///< V, as given (the parallel model pads it: padded_vocab)
  std::int64_t padded_vocab = 0;    ///< V padded to a multiple of its parts
  int micro_batches = 0;            ///< M per replica
  std::string schedule;             ///< "gpipe" or "1f1b"
  std::vector<StageTiming> stages;  ///< stage 0 first
  /// The part of StepTiming's time in communication spent on the point-to-point transfers
  /// between stages (group "pp"): the slowest rank's, per step. They are started and run while
  /// the stage computes, so only the time a rank was blocked on them counts (a receive, the
  /// sends' end), here and in StepTiming's comm_seconds.
  Spread pp_comm_seconds;
  std::int64_t pp_bytes_per_rank = 0;  ///< logical bytes a rank sent and received between stages
  /// The cost model's (model::pipeline_transfers), the most of any rank.
  std::int64_t model_pp_bytes_per_rank = 0;
  /// Whether every rank's sends, receives and their bytes between stages are the model's.
  bool pp_transfers_as_modelled = false;
  double bubble_formula = 0;  ///< (S - 1) / (M + S - 1)
};

/// Bytes one rank of a timed pipelined step needs, about: the training's without its reference
/// (train::training_bytes_per_rank holds both, the reference's at least as large).
double pipeline_step_bytes_per_rank(const PipelineStepConfig& config);

/// Runs warm-up steps, then `repeats` timed steps of `config`'s GPT on `world` (the training's
/// rules: validate_training). Collective over `world`.
PipelineTiming time_pipeline_step(Comm& world, Device& device, const PipelineStepConfig& config);

}  // namespace tplab::bench
