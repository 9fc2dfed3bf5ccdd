/// @file
/// How close the parallel loss curve must stay to the reference's: one place for every dtype
/// and optimizer.
#pragma once

#include <string_view>

#include "core/dtype.hpp"
#include "optim/sharded_optimizer.hpp"

namespace tplab::train {

/// A step passes when |loss - reference| <= rtol * |reference| (NaN never does); with --clip
/// the gradient norm is held to the same rtol against the reference's.
struct LossTolerance {
  double rtol = 0;         ///< relative to the reference's loss
  std::string_view basis;  ///< where the number comes from, for reports
};

/// The tolerance of a run computed in `dtype` with `optimizer` against the f64 reference.
LossTolerance loss_tolerance(DType dtype, OptimizerKind optimizer = OptimizerKind::sgd);

}  // namespace tplab::train
