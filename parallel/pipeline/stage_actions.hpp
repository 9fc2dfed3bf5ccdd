/// @file
/// A schedule as data: the ordered forward and backward passes one pipeline stage runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheme/pipeline_schedule.hpp"

namespace tplab::pipeline {

/// One pass of one micro-batch on one stage: F(i) or B(i).
struct StageAction {
  /// Which pass of the micro-batch.
  enum class Pass {
    forward,   ///< F: its activations through the stage's blocks
    backward,  ///< B: their gradients back, the parameters' gradients added to the step's
  };
  Pass pass = Pass::forward;                            ///< F or B
  int micro = 0;                                        ///< the micro-batch i, from 0
  bool operator==(const StageAction&) const = default;  ///< the same pass of the same micro-batch
};

/// What stage `stage` of `stages` runs in one step of `micro_batches` micro-batches, in order:
///   GPipe: F(0) ... F(M-1), then B(0) ... B(M-1);
///   1F1B: a warm-up of min(S - s - 1, M) forwards, then F and B alternating (F(i + w), B(i)),
///         then the remaining backwards.
/// Every stage's backwards run in micro-batch order, so gradients accumulate in the same order
/// as in a serial run of the same micro-batches.
std::vector<StageAction> stage_actions(PipelineSchedule schedule, int stages, int stage,
                                       int micro_batches);

/// The most micro-batches whose forward has run and whose backward has not, at any point of
/// `actions`: what the stage keeps for backward at its peak, in micro-batches (GPipe: M;
/// 1F1B: min(S - s, M)).
int most_in_flight(const std::vector<StageAction>& actions);

/// (S - 1) / (M + S - 1): the share of a step each stage idles when every stage takes the same
/// time per micro-batch and transfers cost nothing, GPipe and 1F1B alike (0 for one stage).
double bubble_fraction(int stages, std::int64_t micro_batches);

/// "F0 F1 B0 F2 B1 B2": the actions as the papers write them.
std::string to_string(const std::vector<StageAction>& actions);

}  // namespace tplab::pipeline
