/// @file
/// Finding where a NaN or Inf first appears inside a block.
#pragma once

#include <stdexcept>
#include <string>

#include "device/device.hpp"

namespace tplab {

/// Thrown by check_finite: names the stage, the tensor's extents and the first bad index.
class NonFiniteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Turns the checks on or off for this process (off by default: each check reads the whole
/// tensor). Like PyTorch's anomaly detection, a debugging mode, set once before a run.
void set_check_finite(bool enabled);
/// Whether the checks are on.
bool check_finite_enabled();

/// When checks are on, throws NonFiniteError if `x` holds a NaN or Inf, naming `stage`
/// ("attention output (forward)") so that the first stage to produce one is reported.
void check_finite(Device& device, const Tensor& x, const char* stage);

}  // namespace tplab
