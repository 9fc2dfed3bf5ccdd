/// @file
/// The FLOP count of one block's step.
#include "flops.hpp"

namespace tplab::model {

double block_step_flops(const BlockShape& shape) {
  const double b = static_cast<double>(shape.b), s = static_cast<double>(shape.s);
  const double h = static_cast<double>(shape.h);
  return 3.0 * (24.0 * b * s * h * h + 4.0 * b * s * s * h);
}

}  // namespace tplab::model
