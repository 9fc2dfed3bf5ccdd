/// @file
/// One training step of one pipeline stage: its actions run in order, activations and their
/// gradients passed to and from the neighbouring stages.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/comm.hpp"
#include "gpt/gpt_model.hpp"
#include "pipeline/stage_actions.hpp"

namespace tplab::pipeline {

/// One micro-batch's token ids and targets (its sequences of the replica's slice).
struct MicroBatch {
  std::vector<std::int64_t> ids;      ///< what the first stage embeds
  std::vector<std::int64_t> targets;  ///< what the last stage's loss predicts
};

/// Where a stage first saw a NaN or Inf in a step, as its own checks found it.
struct NonFinite {
  /// What was not finite.
  enum class Kind {
    none,      ///< every value it received, made and sent was finite
    arrived,   ///< a received tensor held one on arrival
    made,      ///< a pass made one from a finite input
    loss,      ///< the last stage's forward: a token's loss
    gradient,  ///< only its parameter gradients hold one
  };
  Kind kind = Kind::none;  ///< none: every value was finite
  StageAction action;      ///< the pass where it was seen (not for gradient)
};

/// What a stage's step measured.
struct StageStepRecord {
  /// The most bytes the stage held for backward at once: each forward F(i) keeps what it left
  /// allocated on the device (the live storage after it, including its received input, less
  /// before it, less its output on its way to the next stage) until B(i) runs; the most of
  /// their sum over the in-flight micro-batches, most_in_flight(actions) x one micro-batch's.
  std::int64_t kept_bytes = 0;
  int sends = 0;     ///< point-to-point sends started (one per micro-batch and direction)
  int receives = 0;  ///< receives
  /// Seconds the stage computed: inside its forwards and backwards (F and B on the trace), the
  /// checks of what it received and made, and the end of the step's gradients; not waiting for
  /// a receive or for its sends.
  double busy_seconds = 0;
  /// Seconds the whole step took on this rank, from its first action to its last send done.
  double seconds = 0;
  /// The first NaN or Inf this stage saw in the order values flow (its forwards, then its
  /// backwards, by micro-batch, then its gradients): every received and sent tensor, every loss
  /// and, at the end, every parameter gradient is checked (Device::first_nonfinite), so that a
  /// job can name the stage and pass where one first appeared.
  NonFinite non_finite;
};

/// Runs step `step` of `model`'s stage: every action in order (`actions`, from stage_actions),
/// F(i) on micro-batch i's batch, B(i) after it. A stage other than the first receives F(i)'s
/// input from the stage before it on `pp` (rank stage - 1) before running it; a stage other
/// than the last starts sending F(i)'s output to the next one; B(i) receives from the next stage
/// and starts sending to the one before in the same way. Receives block; sends are started and
/// waited for at the end of the step, so no two stages ever wait for each other (every
/// schedule's actions keep each pair of neighbours in the same order). `pp` may be null on a
/// one-stage model. Ends with model.finish_step(): the gradients are the micro-batches' mean.
StageStepRecord run_stage_step(gpt::GptModel& model, Comm* pp, Device& device, DType dtype,
                               std::span<const StageAction> actions,
                               std::span<const MicroBatch> batches, std::uint32_t step);

}  // namespace tplab::pipeline
