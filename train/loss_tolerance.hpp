/// @file
/// How close the parallel loss curve must stay to the reference's: one place for every dtype.
#pragma once

#include <string_view>

#include "core/dtype.hpp"

namespace tplab::train {

/// A step passes when |loss - reference| <= rtol * |reference| (NaN never does).
struct LossTolerance {
  double rtol = 0;         ///< relative to the reference's loss
  std::string_view basis;  ///< where the number comes from, for reports
};

/// The tolerance of a run computed in `dtype` against the f64 reference.
LossTolerance loss_tolerance(DType dtype);

}  // namespace tplab::train
