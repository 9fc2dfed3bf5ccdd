#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_util.hpp"
#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

using testing::random_matrix;
using testing::random_vector;
using testing::relative_error;

TEST(LayerNorm, KnownRow) {
  const Matrix<double> x{{1, 2, 3, 4}};
  const Vector<double> gamma = Vector<double>::Ones(4);
  const Vector<double> beta = Vector<double>::Zero(4);
  // mean 2.5; biased variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
  const double rstd = 1.0 / std::sqrt(1.25 + kLayerNormEps);
  const Matrix<double> expected{{-1.5 * rstd, -0.5 * rstd, 0.5 * rstd, 1.5 * rstd}};
  EXPECT_LT(relative_error(layernorm_forward(x, gamma, beta), expected), 1e-15);
}

TEST(LayerNorm, GammaScalesAndBetaShifts) {
  const Matrix<double> x{{1, 2, 3, 4}};
  const Vector<double> gamma{{2, -1, 0, 3}};
  const Vector<double> beta{{1, 0, 5, -2}};
  const double rstd = 1.0 / std::sqrt(1.25 + kLayerNormEps);
  const Matrix<double> expected{{2 * -1.5 * rstd + 1, -1 * -0.5 * rstd, 5, 3 * 1.5 * rstd - 2}};
  EXPECT_LT(relative_error(layernorm_forward(x, gamma, beta), expected), 1e-15);
}

TEST(LayerNorm, RowsHaveZeroMeanAndUnitVariance) {
  std::mt19937_64 rng(1);
  const Matrix<double> x = random_matrix(5, 32, rng, 3.0, 2.0);
  const Matrix<double> y =
      layernorm_forward<double>(x, Vector<double>::Ones(32), Vector<double>::Zero(32));
  for (Eigen::Index i = 0; i < y.rows(); ++i) {
    const double mean = y.row(i).mean();
    const double var = (y.row(i).array() - mean).square().mean();
    EXPECT_NEAR(mean, 0.0, 1e-14) << "row " << i;
    // Not exactly 1: eps sits inside the square root.
    const double x_var = (x.row(i).array() - x.row(i).mean()).square().mean();
    EXPECT_NEAR(var, x_var / (x_var + kLayerNormEps), 1e-13) << "row " << i;
    EXPECT_NEAR(var, 1.0, 1e-5) << "row " << i;
  }
}

// A row far from zero: E[x^2] - E[x]^2 in float loses the variance entirely here (x^2 ~ 1e8
// has an ulp of 8), while mean-then-deviations keeps it exact.
TEST(LayerNorm, FloatRowWithLargeOffset) {
  const Matrix<float> x{{10001.0f, 10002.0f, 10003.0f, 10004.0f}};
  const Matrix<float> y =
      layernorm_forward<float>(x, Vector<float>::Ones(4), Vector<float>::Zero(4));
  const float rstd = 1.0f / std::sqrt(1.25f + static_cast<float>(kLayerNormEps));
  const Matrix<float> expected{{-1.5f * rstd, -0.5f * rstd, 0.5f * rstd, 1.5f * rstd}};
  EXPECT_LT(relative_error(y, expected), 1e-6f);
}

TEST(LayerNorm, BackwardMatchesFiniteDifferences) {
  std::mt19937_64 rng(2);
  const Matrix<double> x = random_matrix(3, 6, rng, 1.0);
  const Vector<double> gamma = random_vector(6, rng, 0.5, 1.0);
  const Vector<double> beta = random_vector(6, rng, 0.5);
  const Matrix<double> dy = random_matrix(3, 6, rng, 1.0);
  Matrix<double> dx;
  Vector<double> dgamma, dbeta;
  layernorm_backward(x, gamma, dy, dx, dgamma, dbeta);

  const double step = 1e-5;
  auto loss = [&](const Matrix<double>& xx, const Vector<double>& g, const Vector<double>& b) {
    return (layernorm_forward(xx, g, b).array() * dy.array()).sum();
  };
  Matrix<double> fd_dx(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    Matrix<double> plus = x, minus = x;
    plus.data()[i] += step;
    minus.data()[i] -= step;
    fd_dx.data()[i] = (loss(plus, gamma, beta) - loss(minus, gamma, beta)) / (2 * step);
  }
  Vector<double> fd_dgamma(6), fd_dbeta(6);
  for (Eigen::Index i = 0; i < 6; ++i) {
    Vector<double> plus = gamma, minus = gamma;
    plus(i) += step;
    minus(i) -= step;
    fd_dgamma(i) = (loss(x, plus, beta) - loss(x, minus, beta)) / (2 * step);
    plus = beta;
    minus = beta;
    plus(i) += step;
    minus(i) -= step;
    fd_dbeta(i) = (loss(x, gamma, plus) - loss(x, gamma, minus)) / (2 * step);
  }
  EXPECT_LT(relative_error(dx, fd_dx), 1e-7);
  EXPECT_LT(relative_error(dgamma, fd_dgamma), 1e-7);
  EXPECT_LT(relative_error(dbeta, fd_dbeta), 1e-7);
}

}  // namespace
}  // namespace tplab::reference
