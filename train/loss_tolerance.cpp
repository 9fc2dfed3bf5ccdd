/// @file
/// The loss curves' tolerances and their measurements.
#include "loss_tolerance.hpp"

#include "core/error.hpp"

namespace tplab::train {

LossTolerance loss_tolerance(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return {1e-10, "f64 vs f64: only summation order differs"};
    case DType::f32:
      return {1e-4, "f32 vs f64 reference: calibrated, see README"};
    case DType::bf16:
      break;
  }
  throw UsageError("train runs in f64 or f32");
}

}  // namespace tplab::train
