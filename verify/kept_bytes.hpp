/// @file
/// KeptBytesProbe: what forward leaves on the device for backward, measured.
#pragma once

#include <cstddef>

#include "device/device.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab::verify {

/// Measures what a module keeps from forward for backward as the device's own account of its
/// live storage (Device::allocations), not as any layer says it does. Made just before
/// forward; read once forward has run and the caller has let go of x and of forward's output y
/// (read back first): whatever is live then and was not before is what the module holds for
/// backward, x counted too when the module keeps it. The parameters, dy and anything else
/// alive before forward cancel out.
class KeptBytesProbe {
 public:
  /// `x` must be a whole allocation of `device` (not a view into a larger one), held here by
  /// the caller and, later, by the module alone if it keeps it.
  KeptBytesProbe(const Device& device, const Tensor& x);
  /// The bytes live now that were not before forward, x's among them if it is still alive.
  std::size_t kept_bytes() const;

 private:
  const Device& device_;
  std::size_t before_;  ///< live bytes before forward, less x's
};

/// Runs `module`'s forward on `x`, which the caller hands over with no other handle to it (a
/// whole allocation of `device`), lets go of x and of the output once the device is done, and
/// returns what the module keeps for backward, as KeptBytesProbe measures it.
std::size_t forward_and_measure_kept(Device& device, ParallelModule& module, Tensor x);

}  // namespace tplab::verify
