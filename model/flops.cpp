/// @file
/// The FLOP count of one block's step, and of what recomputation adds to it.
#include "flops.hpp"

namespace tplab::model {

namespace {

/// 24 b s h^2 + 4 b s^2 h: the block's forward.
double forward_flops(const BlockShape& shape) {
  const double b = static_cast<double>(shape.b), s = static_cast<double>(shape.s);
  const double h = static_cast<double>(shape.h);
  return 24.0 * b * s * h * h + 4.0 * b * s * s * h;
}

}  // namespace

double block_step_flops(const BlockShape& shape) {
  return 3.0 * forward_flops(shape);
}

double recompute_flops(const BlockShape& shape, Recompute mode) {
  const double b = static_cast<double>(shape.b), s = static_cast<double>(shape.s);
  const double h = static_cast<double>(shape.h);
  switch (mode) {
    case Recompute::none:
      return 0;
    case Recompute::selective:
      return 2.0 * b * s * s * h;
    case Recompute::full:
      return forward_flops(shape);
  }
  return 0;
}

}  // namespace tplab::model
