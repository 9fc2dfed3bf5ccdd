#include "tolerance.hpp"

#include "core/error.hpp"

namespace tplab::verify {

const ZeroGradient* zero_gradient(std::string_view tensor) {
  for (const ZeroGradient& z : kZeroGradients) {
    if (z.tensor == tensor) return &z;
  }
  return nullptr;
}

Tolerance tolerance_for(DType dtype, bool exact) {
  if (exact) return {0.0, 0.0, 0.0, "exact: integer inputs make every sum exact"};
  switch (dtype) {
    case DType::f64:
      return {1e-12, 1e-10, 1e-12, "f64 vs f64: only summation order differs"};
    case DType::f32:
      return {1e-5, 1e-4, 1e-5, "f32 vs f64 reference: calibrated, see README"};
    case DType::bf16:
      return {2e-2, 5e-2, 2e-2, "bf16 storage, f32 accumulation vs f64 reference"};
  }
  throw InternalError("unknown dtype");
}

}  // namespace tplab::verify
