/// @file
/// The stage action lists of GPipe and 1F1B.
#include "pipeline/stage_actions.hpp"

#include <algorithm>

namespace tplab::pipeline {

std::vector<StageAction> stage_actions(PipelineSchedule schedule, int stages, int stage,
                                       int micro_batches) {
  using Pass = StageAction::Pass;
  std::vector<StageAction> out;
  const int warmup = schedule == PipelineSchedule::gpipe
                         ? micro_batches
                         : std::min(stages - stage - 1, micro_batches);
  int forwards = 0, backwards = 0;
  for (; forwards < warmup; ++forwards) out.push_back({Pass::forward, forwards});
  while (forwards < micro_batches) {  // the steady state: one forward, one backward
    out.push_back({Pass::forward, forwards++});
    out.push_back({Pass::backward, backwards++});
  }
  while (backwards < micro_batches) out.push_back({Pass::backward, backwards++});
  return out;
}

int most_in_flight(const std::vector<StageAction>& actions) {
  int now = 0, most = 0;
  for (const StageAction& a : actions) {
    now += a.pass == StageAction::Pass::forward ? 1 : -1;
    most = std::max(most, now);
  }
  return most;
}

double bubble_fraction(int stages, std::int64_t micro_batches) {
  return static_cast<double>(stages - 1) / static_cast<double>(micro_batches + stages - 1);
}

std::string to_string(const std::vector<StageAction>& actions) {
  std::string out;
  for (const StageAction& a : actions) {
    if (!out.empty()) out += ' ';
    out += (a.pass == StageAction::Pass::forward ? 'F' : 'B') + std::to_string(a.micro);
  }
  return out;
}

}  // namespace tplab::pipeline
