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
/// bf16 (with f32 master weights) against the f64 reference, over 50 steps on every scheme at
/// every degree of 1, 2, 4 and 8 that splits the shape (bench/loss_gap.py; blocks 4,16,32,4
/// and 4,16,64,8, V = 64; bench/results/training/bf16_*.json):
///   the first step, where both hold the same parameters (and the same gradient, whatever the
///   optimizer): the loss within 3.2e-4 relative (144 runs) and the gradient norm within 8.6e-4
///   (the 72 runs with --clip), so 5e-3 leaves about 6.
///   SGD after it: at most 2.9e-2 relative (59 runs, seeds 1-3), so 6e-2 leaves 2.
///   AdamW after it (with --clip 1, lr 0.01; 85 runs, seeds 1-3): the loss falls to 0.002, which
///   bf16's 8-bit logits and cross-entropy sums cannot follow (relative gaps up to 2.3 there,
///   absolute 2e-3), and Adam's spikes come at other heights (0.488 against 0.595 at one step);
///   every step stayed within 0.1 relative + 0.048 absolute, so 0.1 + 0.1 leaves 2. The
///   gradient norm after the first step is a property of the trajectory (up to 0.3 apart) and
///   is printed, not judged, in bf16.
/// Longer runs let the two curves drift further apart and may need more.
#include "loss_tolerance.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab::train {

std::string LossTolerance::text() const {
  std::string text = fmt::format("{:.0e}", rtol);
  if (atol > 0) text += fmt::format(" + {:.0e} absolute", atol);
  if (first_rtol > 0) text += fmt::format(", {:.0e} at step 0", first_rtol);
  return text;
}

LossTolerance loss_tolerance(DType dtype, OptimizerKind optimizer) {
  switch (dtype) {
    case DType::f64:
      return {.rtol = 1e-10, .basis = "f64 vs f64: only summation order differs"};
    case DType::f32:
      if (optimizer == OptimizerKind::adamw) {
        return {.rtol = 5e-4,
                .basis = "f32 AdamW vs f64 reference: calibrated, see docs/training.md"};
      }
      return {.rtol = 2e-5, .basis = "f32 vs f64 reference: calibrated, see README"};
    case DType::bf16:
      if (optimizer == OptimizerKind::adamw) {
        return {.rtol = 1e-1,
                .atol = 1e-1,
                .first_rtol = 5e-3,
                .norm_after_first = false,
                .basis = "bf16 AdamW vs f64 reference: calibrated, see docs/training.md"};
      }
      return {.rtol = 6e-2,
              .first_rtol = 5e-3,
              .norm_after_first = false,
              .basis = "bf16 vs f64 reference: calibrated, see docs/training.md"};
  }
  throw UsageError("train runs in f64, f32 or bf16");
}

}  // namespace tplab::train
