#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>

#include "test_util.hpp"
#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

using testing::finite_difference;
using testing::kGradientTolerance;
using testing::random_matrix;
using testing::random_params;
using testing::relative_error;
using testing::TensorView;

/// Checks dx and all sixteen parameter gradients against L = sum(y .* dy).
/// With dropout, L is still a smooth function of every input: the masks depend only on the
/// seed, step, layer and each element's place, never on the values.
void check_gradients(const Shape& sh, std::uint64_t seed, const Dropout& dropout = {}) {
  std::mt19937_64 rng(seed);
  BlockParams<double> params = random_params(sh, rng);
  Matrix<double> x = random_matrix(sh.tokens(), sh.h, rng, 1.0);
  const Matrix<double> dy = random_matrix(sh.tokens(), sh.h, rng, 1.0);

  BlockResult<double> result = block_forward_backward(sh, x, params, dy, dropout);
  auto loss = [&] { return (block_forward(sh, x, params, dropout).array() * dy.array()).sum(); };

  std::vector<TensorView<double>> inputs = testing::tensors(params);
  std::vector<TensorView<double>> grads = testing::tensors(result.grads);
  inputs.insert(inputs.begin(), {"x", x.data(), x.size()});
  grads.insert(grads.begin(), {"dx", result.dx.data(), result.dx.size()});

  std::printf("b=%lld s=%lld h=%lld heads=%lld dropout %.2f, relative error per tensor:\n",
              static_cast<long long>(sh.b), static_cast<long long>(sh.s),
              static_cast<long long>(sh.h), static_cast<long long>(sh.heads), dropout.p);
  for (std::size_t t = 0; t < inputs.size(); ++t) {
    const Vector<double> fd = finite_difference(inputs[t].data, inputs[t].size, loss);
    const auto analytic = grads[t].flat();
    ASSERT_EQ(analytic.size(), fd.size()) << inputs[t].name;
    if (inputs[t].name == "bk") {
      // Adding c to every key adds q . c to a whole row of scores, which softmax ignores:
      // dL/dbk is identically zero, so only an absolute check means anything.
      std::printf("  %-9s |analytic| %.1e |fd| %.1e (exactly zero in exact arithmetic)\n", "bk",
                  analytic.norm(), fd.norm());
      EXPECT_LT(analytic.norm(), 1e-12);
      EXPECT_LT(fd.norm(), 1e-8);
      continue;
    }
    const double err = relative_error(analytic, fd);
    std::printf("  %-9s %.2e\n", inputs[t].name.c_str(), err);
    EXPECT_LT(err, kGradientTolerance) << inputs[t].name;
  }
}

TEST(BlockGradient, FiniteDifferencesTwoHeads) {
  check_gradients(Shape{2, 3, 8, 2}, 11);
}

TEST(BlockGradient, FiniteDifferencesThreeHeads) {
  check_gradients(Shape{1, 4, 12, 3}, 12);
}

TEST(BlockGradient, FiniteDifferencesWithDropout) {
  check_gradients(Shape{2, 4, 8, 2}, 13, Dropout{0.25, 5, 3, 1});
}

// Dropout changes the block (a mask that kept everything would pass the test above), and the
// mask is a function of the key alone: the same key, the same output.
TEST(BlockDropout, DropsAndReplays) {
  const Shape sh{2, 4, 8, 2};
  std::mt19937_64 rng(17);
  const BlockParams<double> params = random_params(sh, rng);
  const Matrix<double> x = random_matrix(sh.tokens(), sh.h, rng, 1.0);
  const Matrix<double> plain = block_forward(sh, x, params);
  const Matrix<double> dropped = block_forward(sh, x, params, Dropout{0.25, 5, 3, 1});
  EXPECT_GT((plain - dropped).norm(), 0.1 * plain.norm());
  EXPECT_EQ(dropped, block_forward(sh, x, params, Dropout{0.25, 5, 3, 1}));
  EXPECT_NE(dropped, block_forward(sh, x, params, Dropout{0.25, 5, 4, 1})) << "another step";
  EXPECT_EQ(plain, block_forward(sh, x, params, Dropout{0.0, 5, 3, 1})) << "p = 0";
}

}  // namespace
}  // namespace tplab::reference
