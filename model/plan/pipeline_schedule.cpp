/// @file
/// The pipeline schedules' bubble, time and activations in flight.
#include "plan/pipeline_schedule.hpp"

#include <algorithm>

#include "pipeline/stage_actions.hpp"

namespace tplab::model::plan {

double bubble_fraction(int stages, std::int64_t micro_batches) {
  return pipeline::bubble_fraction(stages, micro_batches);
}

double pipeline_time_s(double stage_s, int stages, std::int64_t micro_batches) {
  return static_cast<double>(micro_batches + stages - 1) * stage_s;
}

std::int64_t micro_batches_in_flight(int stage, int stages, std::int64_t micro_batches,
                                     PipelineSchedule schedule) {
  // under 1F1B the actions of min(p, m) micro-batches already reach the most in flight: no
  // need to list the thousands of a large global batch (GPipe keeps all m)
  const int listed = static_cast<int>(schedule == PipelineSchedule::gpipe
                                          ? micro_batches
                                          : std::min<std::int64_t>(stages, micro_batches));
  return pipeline::most_in_flight(pipeline::stage_actions(schedule, stages, stage, listed));
}

std::int64_t stage_boundary_elements(std::int64_t micro_batch_tokens, std::int64_t hidden, int tp) {
  return micro_batch_tokens * hidden / tp;
}

}  // namespace tplab::model::plan
