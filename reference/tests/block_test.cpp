#include "tplab/reference/block.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "test_util.hpp"

namespace tplab::reference {
namespace {

using testing::random_matrix;
using testing::random_params;
using testing::relative_error;

/// The block written element by element with plain loops, sharing nothing with the library
/// but the parameter struct: a dropped mask, a wrong head split or a wrong scale in the
/// library shows up as a mismatch.
Matrix<double> naive_block_forward(const Shape& sh, const Matrix<double>& x,
                                   const BlockParams<double>& p) {
  const Eigen::Index m = sh.tokens(), h = sh.h, d = sh.head_dim();
  auto layernorm = [&](const Matrix<double>& in, const Vector<double>& g, const Vector<double>& b) {
    Matrix<double> out(m, h);
    for (Eigen::Index r = 0; r < m; ++r) {
      double mean = 0;
      for (Eigen::Index c = 0; c < h; ++c) mean += in(r, c) / h;
      double var = 0;
      for (Eigen::Index c = 0; c < h; ++c) var += (in(r, c) - mean) * (in(r, c) - mean) / h;
      for (Eigen::Index c = 0; c < h; ++c) {
        out(r, c) = (in(r, c) - mean) / std::sqrt(var + 1e-5) * g(c) + b(c);
      }
    }
    return out;
  };
  auto linear = [&](const Matrix<double>& in, const Matrix<double>& w, const Vector<double>& b) {
    Matrix<double> out(in.rows(), w.cols());
    for (Eigen::Index r = 0; r < in.rows(); ++r) {
      for (Eigen::Index c = 0; c < w.cols(); ++c) {
        double acc = b(c);
        for (Eigen::Index i = 0; i < in.cols(); ++i) acc += in(r, i) * w(i, c);
        out(r, c) = acc;
      }
    }
    return out;
  };

  const Matrix<double> a = layernorm(x, p.ln1_gamma, p.ln1_beta);
  const Matrix<double> q = linear(a, p.wq, p.bq), k = linear(a, p.wk, p.bk),
                       v = linear(a, p.wv, p.bv);
  Matrix<double> ctx = Matrix<double>::Zero(m, h);
  for (Eigen::Index batch = 0; batch < sh.b; ++batch) {
    for (Eigen::Index head = 0; head < sh.heads; ++head) {
      for (Eigen::Index i = 0; i < sh.s; ++i) {
        const Eigen::Index qi = batch * sh.s + i;
        std::vector<double> z;
        for (Eigen::Index j = 0; j <= i; ++j) {
          double dot = 0;
          for (Eigen::Index c = head * d; c < (head + 1) * d; ++c) {
            dot += q(qi, c) * k(batch * sh.s + j, c);
          }
          z.push_back(dot / std::sqrt(static_cast<double>(d)));
        }
        double total = 0;
        for (double zj : z) total += std::exp(zj);
        for (Eigen::Index j = 0; j <= i; ++j) {
          for (Eigen::Index c = head * d; c < (head + 1) * d; ++c) {
            ctx(qi, c) += std::exp(z[j]) / total * v(batch * sh.s + j, c);
          }
        }
      }
    }
  }
  const Matrix<double> x1 = x + linear(ctx, p.wo, p.bo);
  Matrix<double> act = linear(layernorm(x1, p.ln2_gamma, p.ln2_beta), p.w1, p.b1);
  for (Eigen::Index r = 0; r < act.rows(); ++r) {
    for (Eigen::Index c = 0; c < act.cols(); ++c) {
      const double u = act(r, c);
      act(r, c) =
          0.5 * u * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (u + 0.044715 * u * u * u)));
    }
  }
  return x1 + linear(act, p.w2, p.b2);
}

TEST(Block, ForwardMatchesNaiveLoops) {
  for (const Shape sh : {Shape{2, 3, 6, 2}, Shape{1, 5, 12, 3}}) {
    std::mt19937_64 rng(5);
    const BlockParams<double> p = random_params(sh, rng);
    const Matrix<double> x = random_matrix(sh.tokens(), sh.h, rng, 1.0);
    EXPECT_LT(relative_error(block_forward(sh, x, p), naive_block_forward(sh, x, p)), 1e-13)
        << "b=" << sh.b << " s=" << sh.s << " h=" << sh.h << " heads=" << sh.heads;
  }
}

TEST(Block, ForwardBackwardReturnsTheForwardOutput) {
  const Shape sh{2, 4, 8, 2};
  std::mt19937_64 rng(6);
  const BlockParams<double> p = random_params(sh, rng);
  const Matrix<double> x = random_matrix(sh.tokens(), sh.h, rng, 1.0);
  const Matrix<double> dy = random_matrix(sh.tokens(), sh.h, rng, 1.0);
  EXPECT_EQ(block_forward_backward(sh, x, p, dy).y, block_forward(sh, x, p));
}

// Changing the last token of sequence 0 may change only that token's output: earlier tokens
// cannot see it (causal mask) and sequence 1 is another batch entry.
TEST(Block, FutureTokensDoNotAffectThePast) {
  const Shape sh{2, 5, 8, 2};
  std::mt19937_64 rng(7);
  const BlockParams<double> p = random_params(sh, rng);
  const Matrix<double> x = random_matrix(sh.tokens(), sh.h, rng, 1.0);
  Matrix<double> x_changed = x;
  x_changed.row(sh.s - 1) = random_matrix(1, sh.h, rng, 1.0);

  const Matrix<double> y = block_forward(sh, x, p);
  const Matrix<double> y_changed = block_forward(sh, x_changed, p);
  // Masked probabilities are exactly zero, so the unaffected rows agree bit for bit.
  EXPECT_EQ(y.topRows(sh.s - 1), y_changed.topRows(sh.s - 1));
  EXPECT_EQ(y.bottomRows(sh.s), y_changed.bottomRows(sh.s));
  EXPECT_NE(y.row(sh.s - 1), y_changed.row(sh.s - 1));
}

TEST(Block, FloatAgreesWithDouble) {
  const Shape sh{2, 16, 64, 4};
  std::mt19937_64 rng(8);
  // Round the inputs to float first so that both runs see identical values.
  const BlockParams<float> pf = testing::cast_params<float>(random_params(sh, rng));
  const BlockParams<double> pd = testing::cast_params<double>(pf);
  const Matrix<float> xf = random_matrix(sh.tokens(), sh.h, rng, 1.0).cast<float>();
  const Matrix<float> dyf = random_matrix(sh.tokens(), sh.h, rng, 1.0).cast<float>();

  BlockResult<float> rf = block_forward_backward(sh, xf, pf, dyf);
  BlockResult<double> rd =
      block_forward_backward(sh, xf.cast<double>().eval(), pd, dyf.cast<double>().eval());

  EXPECT_LT(relative_error(rf.y.cast<double>(), rd.y), 1e-5);
  EXPECT_LT(relative_error(rf.dx.cast<double>(), rd.dx), 1e-5);
  const auto grads_f = testing::tensors(rf.grads);
  const auto grads_d = testing::tensors(rd.grads);
  for (std::size_t t = 0; t < grads_d.size(); ++t) {
    const Vector<double> gf = grads_f[t].flat().template cast<double>();
    if (grads_d[t].name == "bk") {
      // Identically zero in exact arithmetic (see block_gradient_test.cpp): only rounding.
      EXPECT_LT(gf.norm(), 1e-5 * rd.grads.bq.norm());
      continue;
    }
    EXPECT_LT(relative_error(gf, grads_d[t].flat()), 1e-5) << grads_d[t].name;
  }
}

}  // namespace
}  // namespace tplab::reference
