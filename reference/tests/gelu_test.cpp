#include <gtest/gtest.h>

#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

TEST(Gelu, KnownPoints) {
  const Matrix<double> x{{0.0, 1.0, -1.0, 10.0, -10.0}};
  const Matrix<double> y = gelu_tanh(x);
  EXPECT_EQ(y(0, 0), 0.0);
  // 0.5 (1 + tanh(sqrt(2/pi) * 1.044715)), and gelu(-x) = gelu(x) - x; 12 digits given.
  EXPECT_NEAR(y(0, 1), 0.841191990607, 5e-12);
  EXPECT_NEAR(y(0, 2), -0.158808009393, 5e-12);
  EXPECT_NEAR(y(0, 3), 10.0, 1e-12);
  EXPECT_NEAR(y(0, 4), 0.0, 1e-12);
}

TEST(Gelu, DerivativeAtZeroIsHalf) {
  EXPECT_DOUBLE_EQ(gelu_tanh_derivative<double>(Matrix<double>::Zero(1, 1))(0, 0), 0.5);
}

TEST(Gelu, DerivativeMatchesFiniteDifferences) {
  const Matrix<double> x{{-4.0, -2.5, -1.0, -0.3, 0.0, 0.2, 0.7, 1.0, 1.8, 3.0, 6.0}};
  const double step = 1e-5;
  const Matrix<double> fd = (gelu_tanh<double>((x.array() + step).matrix()) -
                             gelu_tanh<double>((x.array() - step).matrix())) /
                            (2 * step);
  const Matrix<double> d = gelu_tanh_derivative(x);
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    EXPECT_NEAR(d(0, j), fd(0, j), 1e-9) << "x = " << x(0, j);
  }
}

}  // namespace
}  // namespace tplab::reference
