#include "layers/finite_check.hpp"

#include <fmt/format.h>

#include <atomic>

namespace tplab {
namespace {

std::atomic<bool> enabled{false};

}  // namespace

void set_check_finite(bool on) { enabled = on; }

bool check_finite_enabled() { return enabled; }

void check_finite(Device& device, const Tensor& x, const char* stage) {
  if (!enabled) return;
  const std::int64_t index = device.first_nonfinite(x);
  if (index < 0) return;
  throw NonFiniteError(fmt::format("a NaN or Inf first appears in the {} {}, at index {}", stage,
                                   to_string(x.extents()), index));
}

}  // namespace tplab
