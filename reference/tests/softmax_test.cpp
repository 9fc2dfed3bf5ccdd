#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_util.hpp"
#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

using testing::random_matrix;

TEST(CausalSoftmax, RowsSumToOne) {
  std::mt19937_64 rng(3);
  const Matrix<double> p = causal_softmax(random_matrix(7, 7, rng, 4.0), 0.5);
  for (Eigen::Index i = 0; i < p.rows(); ++i) EXPECT_NEAR(p.row(i).sum(), 1.0, 1e-15) << i;
  EXPECT_GE(p.minCoeff(), 0.0);
}

TEST(CausalSoftmax, MaskIsExactlyZeroAboveDiagonal) {
  std::mt19937_64 rng(4);
  const Matrix<double> p = causal_softmax(random_matrix(6, 6, rng, 4.0), 1.0);
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      if (j > i) {
        EXPECT_EQ(p(i, j), 0.0) << i << "," << j;
      } else {
        EXPECT_GT(p(i, j), 0.0) << i << "," << j;
      }
    }
  }
  // The first query sees only itself.
  Matrix<double> first_row = Matrix<double>::Zero(1, 6);
  first_row(0, 0) = 1.0;
  EXPECT_EQ(p.row(0), first_row);
}

TEST(CausalSoftmax, KnownValuesAndScale) {
  // Row 1 sees [0, ln 3] -> [1/4, 3/4]; with scale 2, scores [0, ln(3)/2] give the same.
  const Matrix<double> scores{{5, 7}, {0, std::log(3.0) / 2}};
  const Matrix<double> p = causal_softmax(scores, 2.0);
  EXPECT_DOUBLE_EQ(p(0, 0), 1.0);
  EXPECT_EQ(p(0, 1), 0.0);
  EXPECT_NEAR(p(1, 0), 0.25, 1e-15);
  EXPECT_NEAR(p(1, 1), 0.75, 1e-15);
}

TEST(CausalSoftmax, LargeScoresDoNotOverflow) {
  // Visible scores near 1000 overflow a naive exp(); masked ones far larger must not take part
  // in the max either, or every visible probability would underflow to zero.
  const Matrix<double> scores{
      {1000, 1e30, 1e30}, {1000, 1000 + std::log(3.0), 1e30}, {-1e30, 1000, 1000}};
  const Matrix<double> p = causal_softmax(scores, 1.0);
  ASSERT_TRUE(p.allFinite());
  const Matrix<double> expected{{1, 0, 0}, {0.25, 0.75, 0}, {0, 0.5, 0.5}};
  EXPECT_LT((p - expected).norm(), 1e-13);
}

}  // namespace
}  // namespace tplab::reference
