#include <gtest/gtest.h>

#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

// Small integers so that every expected value below can be checked on paper.
struct LinearCase {
  Matrix<double> x{{1, 2}, {3, 4}};          // [2, 2]
  Matrix<double> w{{1, 0, -1}, {2, 1, 0}};   // [2, 3]
  Vector<double> b{{1, 2, 3}};               // [3]
  Matrix<double> dy{{1, 0, 1}, {0, 1, -1}};  // [2, 3]
};

TEST(Linear, ForwardByHand) {
  const LinearCase c;
  // Row 0: [1*1 + 2*2, 1*0 + 2*1, 1*(-1) + 2*0] + b = [5, 2, -1] + [1, 2, 3].
  // Row 1: [3*1 + 4*2, 3*0 + 4*1, 3*(-1) + 4*0] + b = [11, 4, -3] + [1, 2, 3].
  const Matrix<double> expected{{6, 4, 2}, {12, 6, 0}};
  EXPECT_EQ(linear_forward(c.x, c.w, c.b), expected);
}

TEST(Linear, BackwardByHand) {
  const LinearCase c;
  Matrix<double> dx, dw;
  Vector<double> db;
  linear_backward(c.x, c.w, c.dy, dx, dw, db);
  // dx = dy W^T: row 0 = [1*1 + 1*(-1), 1*2 + 1*0], row 1 = [1*0 + (-1)*(-1), 1*1 + (-1)*0].
  const Matrix<double> expected_dx{{0, 2}, {1, 1}};
  // dW = x^T dy: row 0 = 1*[1, 0, 1] + 3*[0, 1, -1], row 1 = 2*[1, 0, 1] + 4*[0, 1, -1].
  const Matrix<double> expected_dw{{1, 3, -2}, {2, 4, -2}};
  // db = column sums of dy.
  const Vector<double> expected_db{{1, 1, 0}};
  EXPECT_EQ(dx, expected_dx);
  EXPECT_EQ(dw, expected_dw);
  EXPECT_EQ(db, expected_db);
}

}  // namespace
}  // namespace tplab::reference
