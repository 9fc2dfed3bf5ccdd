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
      // Not yet calibrated: no GPU has run these checks yet (./tplab gpu-check prints the
      // worst share of each bound a run used, for calibration). Derived from bf16's unit
      // roundoff u = 2^-8 ~ 3.9e-3: every stored intermediate is rounded to bf16 (relative
      // error <= u), while sums accumulate in f32, so a reduction of k <= 4h terms adds only
      // ~sqrt(k) 2^-24, far below u. A tensor at the end of the backward pass has been
      // rounded at about 25 stages in sequence; independent roundings (standard deviation
      // u/sqrt(3) each) give a relative L2 error near sqrt(25/3) u ~ 3u ~ 1.1e-2. The bound
      // on rel_l2 is 8u; an element may differ by 16u of the tensor's RMS plus 16u of itself,
      // room for the largest of ~1e5 elements at ~5 standard deviations.
      return {0x1p-4, 0x1p-4, 0x1p-5,
              "bf16 storage, f32 accumulation vs f64 reference: from bf16's roundoff 2^-8, "
              "not yet calibrated on a GPU"};
  }
  throw InternalError("unknown dtype");
}

}  // namespace tplab::verify
