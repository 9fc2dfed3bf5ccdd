/// @file
/// The fixed sinusoidal position embedding.
#include "gpt/sinusoidal_positions.hpp"

#include <cmath>

namespace tplab::gpt {

double sinusoidal_position(std::int64_t pos, std::int64_t c, std::int64_t h) {
  const std::int64_t pair = c - c % 2;  // sin and cos of one frequency share it
  const double angle = static_cast<double>(pos) *
                       std::pow(10000.0, -static_cast<double>(pair) / static_cast<double>(h));
  return c % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

}  // namespace tplab::gpt
