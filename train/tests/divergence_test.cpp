// A training is diverged when both loss curves blow up (past kDivergenceFactor times their first
// loss, or to NaN or Inf) after agreeing; a disagreement first, or one curve alone blowing up,
// is the parallel model's own.
#include "divergence.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "trainer.hpp"

namespace tplab::train {
namespace {

const LossTolerance kTolerance{.rtol = 1e-10, .atol = 0, .basis = "test"};

/// Steps whose parallel and reference losses are `parallel` and `reference`.
std::vector<StepRecord> curves(const std::vector<double>& parallel,
                               const std::vector<double>& reference) {
  std::vector<StepRecord> steps;
  for (std::size_t i = 0; i < parallel.size(); ++i) {
    StepRecord s;
    s.step = static_cast<std::int64_t>(i);
    s.loss = parallel[i];
    s.reference_loss = reference[i];
    s.relative_difference = std::abs(s.loss - s.reference_loss) / std::abs(s.reference_loss);
    steps.push_back(s);
  }
  return steps;
}

TEST(DivergenceStep, FirstLossPastTheFactorOrNotFinite) {
  EXPECT_EQ(divergence_step(std::vector<double>{4.0, 3.9, 3.5, 3.1}), std::nullopt);
  EXPECT_EQ(divergence_step(std::vector<double>{4.0, 30.0, 39.0, 41.0, 900.0}), 3);
  EXPECT_EQ(divergence_step(std::vector<double>{4.0, 5.0, std::nan("")}), 2);
  EXPECT_EQ(divergence_step(std::vector<double>{4.0, std::numeric_limits<double>::infinity()}), 1);
  EXPECT_EQ(divergence_step(std::vector<double>{}), std::nullopt);
}

TEST(TrainingDivergence, BothCurvesExplodingAfterAgreeingIsADivergence) {
  const auto steps = curves({4.0, 4.5, 60.0, 2000.0}, {4.0, 4.5, 61.0, 700.0});
  const std::optional<Divergence> d = training_divergence(steps, kTolerance);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->parallel_step, 2);
  EXPECT_EQ(d->reference_step, 2);
}

TEST(TrainingDivergence, BothCurvesNanIsADivergence) {
  const double nan = std::nan("");
  EXPECT_TRUE(training_divergence(curves({4.0, nan, nan}, {4.0, nan, nan}), kTolerance));
}

TEST(TrainingDivergence, ConvergingCurvesThatDisagreeAreNot) {
  EXPECT_FALSE(training_divergence(curves({4.0, 3.5, 3.0}, {4.0, 3.4, 2.9}), kTolerance));
}

TEST(TrainingDivergence, OneCurveAloneExplodingIsNot) {
  EXPECT_FALSE(training_divergence(curves({4.0, 3.5, 900.0}, {4.0, 3.5, 3.0}), kTolerance));
  EXPECT_FALSE(training_divergence(curves({4.0, 3.5, 3.0}, {4.0, 3.5, 900.0}), kTolerance));
}

TEST(TrainingDivergence, ADisagreementBeforeTheExplosionIsNot) {
  EXPECT_FALSE(training_divergence(curves({4.0, 3.0, 900.0}, {4.0, 3.5, 800.0}), kTolerance));
}

TEST(LossTolerance, BoundsByStepAndNeverANan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const LossTolerance bf16 = loss_tolerance(DType::bf16, OptimizerKind::adamw);
  // the first step: the tight relative bound alone
  EXPECT_TRUE(bf16.loss_holds(4.0 * (1 + 0.9 * bf16.first_rtol), 4.0, 0));
  EXPECT_FALSE(bf16.loss_holds(4.0 * (1 + 1.1 * bf16.first_rtol), 4.0, 0));
  // after it: rtol plus atol
  EXPECT_TRUE(bf16.loss_holds(0.002 + 0.9 * bf16.atol, 0.002, 7));
  EXPECT_FALSE(bf16.loss_holds(0.002 + 1.1 * (bf16.atol + bf16.rtol * 0.002), 0.002, 7));
  // the norm after the first step is not judged in bf16, but must be finite
  EXPECT_TRUE(bf16.norm_holds(3.0, 1.0, 7));
  EXPECT_FALSE(bf16.norm_holds(nan, 1.0, 7));
  EXPECT_FALSE(bf16.norm_holds(std::numeric_limits<double>::infinity(), 1.0, 7));
  EXPECT_FALSE(bf16.norm_holds(1.1, 1.0, 0));
  for (DType dtype : {DType::f64, DType::f32, DType::bf16}) {
    for (std::int64_t step : {0, 5}) {
      const LossTolerance t = loss_tolerance(dtype, OptimizerKind::sgd);
      EXPECT_FALSE(t.loss_holds(nan, 1.0, step)) << dtype_name(dtype);
      EXPECT_FALSE(t.loss_holds(1.0, nan, step)) << dtype_name(dtype);
    }
  }
  // f64 and f32 judge the norm at every step, as the loss
  EXPECT_FALSE(loss_tolerance(DType::f32).norm_holds(1.1, 1.0, 7));
}

}  // namespace
}  // namespace tplab::train
