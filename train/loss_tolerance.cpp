/// @file
/// The loss curves' tolerances and their measurements.
///
/// f64: the parallel model and the reference differ only in the order of summation; over 50
/// steps on every scheme (seeds 1 and 2) the loss curves stayed within 1.4e-15 of each other,
/// relative, with SGD; with AdamW, clipping at 1 and V = 63 padded to 64, within 6.7e-15 (and
/// the gradient norms within 5.0e-15).
/// f32 against the f64 reference: f32's rounding, amplified by training (each step's update
/// carries the last step's error into the next).
///   SGD: measured at most 2.1e-6 relative over 50 steps (1D at 2 and 4 ranks, 2D at 4, 2.5D
///   and 3D at 8; seeds 1-3; shapes 4,16,32,4 with V = 64 and 4,32,64,4 with V = 128; lr 0.3),
///   so 2e-5 leaves a margin of ten.
///   AdamW: measured at most 2.9e-5 in the loss and 4.8e-5 in the gradient norm over 50 steps
///   (1D at 2 and 4 ranks, 1d-sp at 4, 2D at 4, 2.5D and 3D at 8; seeds 1-4; without and with
///   --clip 1; lr 0.01; docs/training.md), so 5e-4 leaves a margin of ten. AdamW's step
///   m / sqrt(v) does not shrink with the gradient: an element whose gradient is mostly rounding
///   still moves by about lr, where SGD would move it by lr times the rounding. The worst runs
///   are those that reach a loss near 0.03, where a small absolute gap is a large relative one,
///   and that spike on the way (as Adam does at this lr).
/// Longer runs let the two curves drift further apart and may need more.
#include "loss_tolerance.hpp"

#include "core/error.hpp"

namespace tplab::train {

LossTolerance loss_tolerance(DType dtype, OptimizerKind optimizer) {
  switch (dtype) {
    case DType::f64:
      return {1e-10, "f64 vs f64: only summation order differs"};
    case DType::f32:
      if (optimizer == OptimizerKind::adamw) {
        return {5e-4, "f32 AdamW vs f64 reference: calibrated, see docs/training.md"};
      }
      return {2e-5, "f32 vs f64 reference: calibrated, see README"};
    case DType::bf16:
      return {5e-2, "bf16 vs f64 reference: calibrated, see docs/training.md"};
  }
  throw UsageError("train runs in f64, f32 or bf16");
}

}  // namespace tplab::train
