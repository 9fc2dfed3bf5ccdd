/// @file
/// Whether a training diverged, told from its two loss curves. A learning rate too large for
/// SGD makes the parallel model and the reference alike grow chaotically or overflow; past that
/// point their curves part in ways that say nothing about the parallel code, so such a run is
/// reported as diverging, not as a disagreement.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "loss_tolerance.hpp"

namespace tplab::train {

struct StepRecord;

/// A loss curve has diverged at the first step whose loss is not finite or is more than this
/// many times its first step's (cross-entropy from random parameters starts near ln V and falls
/// while a training converges, so even a bumpy one stays far below).
inline constexpr double kDivergenceFactor = 10;

/// The first step at which the curve `losses` diverged, or nothing when it did not.
std::optional<std::int64_t> divergence_step(std::span<const double> losses);

/// Where each curve of a diverged training diverged.
struct Divergence {
  std::int64_t parallel_step = 0;   ///< the parallel model's first diverged step
  std::int64_t reference_step = 0;  ///< the reference's
};

/// The divergence of a training whose steps are `steps`: both curves diverged, and they agreed
/// within `tolerance` at every step before the first divergence (a disagreement before it is
/// the parallel model's own). Nothing otherwise.
std::optional<Divergence> training_divergence(const std::vector<StepRecord>& steps,
                                              const LossTolerance& tolerance);

}  // namespace tplab::train
