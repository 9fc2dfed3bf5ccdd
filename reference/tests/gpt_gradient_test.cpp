// The GPT's own parts (embedding, final LayerNorm, LM head, cross-entropy) against central
// finite differences, and the cross-entropy against values known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "test_util.hpp"
#include "tplab/reference/gpt.hpp"

namespace tplab::reference {
namespace {

using testing::finite_difference;
using testing::kGradientTolerance;
using testing::random_matrix;
using testing::random_params;
using testing::random_vector;
using testing::relative_error;
using testing::TensorView;

std::vector<std::int64_t> random_ids(std::int64_t count, std::int64_t vocab, std::mt19937_64& rng) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
  for (auto& id : ids) id = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(vocab));
  return ids;
}

TEST(CrossEntropy, UniformLogitsGiveLogV) {
  const Matrix<double> logits = Matrix<double>::Constant(3, 10, 2.5);
  EXPECT_NEAR(cross_entropy<double>(logits, {0, 4, 9}, nullptr), std::log(10.0), 1e-15);
}

TEST(CrossEntropy, LargeLogitsDoNotOverflow) {
  Matrix<double> logits(1, 2);
  logits << 1000.0, 1000.0 + std::log(3.0);  // softmax (1/4, 3/4)
  // 1000 + log 3 is rounded to the spacing of doubles near 1000, 1.1e-13: the exact answer
  // is that close, no closer.
  Matrix<double> d;
  EXPECT_NEAR(cross_entropy<double>(logits, {0}, &d), std::log(4.0), 1e-12);
  EXPECT_NEAR(d(0, 0), 0.25 - 1.0, 1e-12);
  EXPECT_NEAR(d(0, 1), 0.75, 1e-12);
}

TEST(CrossEntropy, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(21);
  Matrix<double> logits = random_matrix(5, 7, rng, 3.0);
  const std::vector<std::int64_t> targets = random_ids(5, 7, rng);
  Matrix<double> d;
  cross_entropy<double>(logits, targets, &d);
  const Vector<double> fd = finite_difference(logits.data(), logits.size(), [&] {
    return cross_entropy<double>(logits, targets, nullptr);
  });
  const double err = relative_error(Eigen::Map<const Vector<double>>(d.data(), d.size()), fd);
  std::printf("cross-entropy: relative error of dlogits %.2e\n", err);
  EXPECT_LT(err, kGradientTolerance);
}

TEST(GptGradient, EveryParameterMatchesFiniteDifferences) {
  const GptShape shape{Shape{2, 3, 8, 2}, 7, 2};
  std::mt19937_64 rng(22);
  GptParams<double> p;
  p.embedding = random_matrix(shape.vocab, shape.block.h, rng, 1.0);
  for (std::int64_t l = 0; l < shape.layers; ++l)
    p.blocks.push_back(random_params(shape.block, rng));
  p.lnf_gamma = random_vector(shape.block.h, rng, 0.5, 1.0);
  p.lnf_beta = random_vector(shape.block.h, rng, 0.5);
  p.w_head = random_matrix(shape.block.h, shape.vocab, rng, 0.7);
  p.b_head = random_vector(shape.vocab, rng, 0.5);
  const std::vector<std::int64_t> ids = random_ids(shape.block.tokens(), shape.vocab, rng);
  const std::vector<std::int64_t> targets = random_ids(shape.block.tokens(), shape.vocab, rng);

  GptResult<double> r = gpt_forward_backward(shape, p, ids, targets);
  EXPECT_NEAR(r.loss, gpt_loss(shape, p, ids, targets), 1e-15);
  const auto loss = [&] { return gpt_loss(shape, p, ids, targets); };

  std::vector<TensorView<double>> params = {{"embedding", p.embedding.data(), p.embedding.size()},
                                            {"lnf_gamma", p.lnf_gamma.data(), p.lnf_gamma.size()},
                                            {"lnf_beta", p.lnf_beta.data(), p.lnf_beta.size()},
                                            {"w_head", p.w_head.data(), p.w_head.size()},
                                            {"b_head", p.b_head.data(), p.b_head.size()}};
  std::vector<TensorView<double>> grads = {
      {"embedding", r.grads.embedding.data(), r.grads.embedding.size()},
      {"lnf_gamma", r.grads.lnf_gamma.data(), r.grads.lnf_gamma.size()},
      {"lnf_beta", r.grads.lnf_beta.data(), r.grads.lnf_beta.size()},
      {"w_head", r.grads.w_head.data(), r.grads.w_head.size()},
      {"b_head", r.grads.b_head.data(), r.grads.b_head.size()}};
  // The blocks' gradients as the model passes dx through them (block_gradient_test checks each
  // block alone); the key bias's gradient is zero in exact arithmetic (see there) and is skipped.
  for (std::size_t l = 0; l < p.blocks.size(); ++l) {
    for (auto& v : testing::tensors(p.blocks[l])) {
      if (v.name != "bk") params.push_back(v);
    }
    for (auto& v : testing::tensors(r.grads.blocks[l])) {
      if (v.name != "bk") grads.push_back(v);
    }
  }
  for (std::size_t t = 0; t < params.size(); ++t) {
    const Vector<double> fd = finite_difference(params[t].data, params[t].size, loss);
    const double err = relative_error(grads[t].flat(), fd);
    std::printf("  %-9s %.2e\n", params[t].name.c_str(), err);
    EXPECT_LT(err, kGradientTolerance) << params[t].name;
  }
}

}  // namespace
}  // namespace tplab::reference
