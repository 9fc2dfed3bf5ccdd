/// @file
/// The 1F1B pipeline schedule as a model (Narayanan et al. 2021, "Efficient Large-Scale Language
/// Model Training on GPU Clusters Using Megatron-LM", section 2.2.1). `tplab train --pp` runs the
/// same schedule at small size (pipeline/stage_actions.hpp), and what a stage keeps in flight
/// here is read from its action list, the one the runs execute and measure.
///
/// A step of m micro-batches over p stages, each stage taking t_f + t_b per micro-batch:
///
///   stage 0:  F1 F2 .. Fp  B1 F(p+1) B2 ..  (warm-up of p - s forwards, then one forward, one
///                                            backward, then the cool-down backwards)
///   time:     (m + p - 1) (t_f + t_b), of which the bubble (p - 1) (t_f + t_b) is idle
///   bubble fraction of the pipeline's time:   (p - 1) / (m + p - 1)
///
/// The paper writes the bubble as (p - 1) / m of the ideal time m (t_f + t_b); as a share of
/// the time the pipeline actually takes it is the fraction above, which stays below 1.
#pragma once

#include <cstdint>

#include "scheme/pipeline_schedule.hpp"

namespace tplab::model::plan {

/// (p - 1) / (m + p - 1): the share of a 1F1B pipeline's time each stage is idle, for p stages
/// and m micro-batches (0 for one stage).
double bubble_fraction(int stages, std::int64_t micro_batches);

/// (m + p - 1) x `stage_s`: the time 1F1B takes for m micro-batches when every stage takes
/// `stage_s` (forward + backward) per micro-batch; the slowest stage's time stands for all.
double pipeline_time_s(double stage_s, int stages, std::int64_t micro_batches);

/// Micro-batches whose activations stage `stage` (0 first) keeps at once: under 1F1B the
/// warm-up runs p - stage forwards before the first backward frees one, so min(p - stage, m)
/// (stage 0 keeps the most, p; the last stage one); under GPipe every forward runs before the
/// first backward, so m on every stage. Read from the stage's actions
/// (pipeline::most_in_flight), as `tplab train --pp` measures it.
std::int64_t micro_batches_in_flight(int stage, int stages, std::int64_t micro_batches,
                                     PipelineSchedule schedule = PipelineSchedule::one_f_one_b);

/// Elements one device sends to the next stage per micro-batch, forward (the same comes back as
/// the gradient in backward): the block's output [b s, h] split over the tp devices, b s h / tp.
/// Every scheme holds 1/tp of it (1D after Megatron's scatter/gather of the replicated output,
/// Narayanan et al. 2021 section 4.1; the all-gather within the node after it is left out).
std::int64_t stage_boundary_elements(std::int64_t micro_batch_tokens, std::int64_t hidden, int tp);

}  // namespace tplab::model::plan
