/// @file
/// PipelineSchedule: the order in which a pipeline stage runs its micro-batches' forward and
/// backward passes. Plain options, part of SchemeOptions; the schedules as data are in
/// pipeline/ (pipeline_schedule_actions.hpp).
#pragma once

#include <array>
#include <string_view>

#include "core/names.hpp"

namespace tplab {

/// How a stage interleaves its M micro-batches' forward (F) and backward (B) passes.
enum class PipelineSchedule {
  gpipe,        ///< all forward, then all backward (Huang et al. 2019): M micro-batches kept
  one_f_one_b,  ///< 1F1B (Narayanan et al. 2021): S - s - 1 forwards, then F and B alternate
};

/// The names of the schedules, as --schedule takes them and the JSON records them.
inline constexpr std::array<Named<PipelineSchedule>, 2> kPipelineScheduleNames = {
    {{"gpipe", PipelineSchedule::gpipe}, {"1f1b", PipelineSchedule::one_f_one_b}}};

/// "gpipe" or "1f1b".
constexpr std::string_view schedule_name(PipelineSchedule schedule) {
  return name_in(kPipelineScheduleNames, schedule);
}

}  // namespace tplab
