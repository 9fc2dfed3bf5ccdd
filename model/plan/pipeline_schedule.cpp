/// @file
/// The 1F1B schedule's bubble, time and activations in flight.
#include "plan/pipeline_schedule.hpp"

#include <algorithm>

namespace tplab::model::plan {

double bubble_fraction(int stages, std::int64_t micro_batches) {
  return static_cast<double>(stages - 1) / static_cast<double>(micro_batches + stages - 1);
}

double pipeline_time_s(double stage_s, int stages, std::int64_t micro_batches) {
  return static_cast<double>(micro_batches + stages - 1) * stage_s;
}

std::int64_t micro_batches_in_flight(int stage, int stages, std::int64_t micro_batches) {
  return std::min<std::int64_t>(stages - stage, micro_batches);
}

std::int64_t stage_boundary_elements(std::int64_t micro_batch_tokens, std::int64_t hidden, int tp) {
  return micro_batch_tokens * hidden / tp;
}

}  // namespace tplab::model::plan
