/// @file
/// How close the parallel loss curve must stay to the reference's: one place for every dtype
/// and optimizer.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/dtype.hpp"
#include "optim/sharded_optimizer.hpp"

namespace tplab::train {

/// A step passes when |loss - reference| <= rtol * |reference| + atol (NaN never does); with
/// --clip the gradient norm is held to the same bound against the reference's. f64 and f32 set
/// rtol alone. bf16 sets all four: at the first step both models hold the same parameters and
/// differ by the rounding of one forward and backward, held to first_rtol; after it the bf16
/// trajectory parts from the f64 one as training amplifies that rounding (AdamW's spikes come
/// at other heights), so the loss is held to the wider rtol + atol, and the gradient norm is
/// judged at the first step only (docs/training.md, with the runs behind each number).
struct LossTolerance {
  double rtol = 0;               ///< relative to the reference's value
  double atol = 0;               ///< absolute, beside rtol
  double first_rtol = 0;         ///< the bound at the first step, relative; rtol (and atol) when 0
  bool norm_after_first = true;  ///< whether the norm is judged after the first step
  std::string_view basis;        ///< where the numbers come from, for reports

  /// Whether the loss `got` at `step` is within the bound of `want` (NaN fails).
  bool loss_holds(double got, double want, std::int64_t step) const {
    if (step == 0 && first_rtol > 0) return std::abs(got - want) <= first_rtol * std::abs(want);
    return std::abs(got - want) <= rtol * std::abs(want) + atol;
  }
  /// Whether the gradient norm `got` at `step` is within the bound of `want`; a norm that is
  /// not judged must still be finite (NaN or Inf never passes).
  bool norm_holds(double got, double want, std::int64_t step) const {
    if (step > 0 && !norm_after_first) return std::isfinite(got);
    return loss_holds(got, want, step);
  }
  /// "5e-04", or "1e-01 + 1e-01 absolute, 5e-03 at step 0", for reports.
  std::string text() const;
};

/// The tolerance of a run computed in `dtype` with `optimizer` against the f64 reference.
LossTolerance loss_tolerance(DType dtype, OptimizerKind optimizer = OptimizerKind::sgd);

}  // namespace tplab::train
