#include "divergence.hpp"

#include <algorithm>
#include <cmath>

#include "trainer.hpp"

namespace tplab::train {

std::optional<std::int64_t> divergence_step(std::span<const double> losses) {
  if (losses.empty()) return std::nullopt;
  const double limit = kDivergenceFactor * std::abs(losses.front());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    if (!std::isfinite(losses[i]) || losses[i] > limit) return static_cast<std::int64_t>(i);
  }
  return std::nullopt;
}

std::optional<Divergence> training_divergence(const std::vector<StepRecord>& steps,
                                              const LossTolerance& tolerance) {
  std::vector<double> parallel, reference;
  for (const StepRecord& s : steps) {
    parallel.push_back(s.loss);
    reference.push_back(s.reference_loss);
  }
  const std::optional<std::int64_t> p = divergence_step(parallel), r = divergence_step(reference);
  if (!p || !r) return std::nullopt;
  const auto agreed_before = steps.begin() + std::min(*p, *r);
  // written so that NaN disagrees
  const bool agreed = std::all_of(steps.begin(), agreed_before, [&](const StepRecord& s) {
    return tolerance.loss_holds(s.loss, s.reference_loss, s.step);
  });
  if (!agreed) return std::nullopt;
  return Divergence{*p, *r};
}

}  // namespace tplab::train
