// CpuDevice against naive loops written out in the test.
#include "device/cpu_device.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.hpp"

namespace tplab {
namespace {

std::vector<double> random_values(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = dist(gen);
  return v;
}

class CpuDeviceTest : public testing::TestWithParam<DType> {
 protected:
  Tensor make(const Extents& e, unsigned seed) {
    Tensor t = dev.empty(e, GetParam());
    dev.upload(random_values(element_count(e), seed), t);
    return t;
  }
  std::vector<double> read(const Tensor& t) {
    std::vector<double> v(static_cast<std::size_t>(t.numel()));
    dev.download(t, v);
    return v;
  }
  double tol() const { return GetParam() == DType::f64 ? 1e-12 : 1e-5; }
  CpuDevice cpu;
  Device& dev = cpu;  // through the interface, as the layers use it
};

TEST_P(CpuDeviceTest, MatmulEveryTransposeWithAlphaBeta) {
  const std::int64_t m = 5, k = 7, n = 3;
  for (auto ta : {Transpose::no, Transpose::yes}) {
    for (auto tb : {Transpose::no, Transpose::yes}) {
      const Tensor a = make(ta == Transpose::no ? Extents{m, k} : Extents{k, m}, 1);
      const Tensor b = make(tb == Transpose::no ? Extents{k, n} : Extents{n, k}, 2);
      Tensor c = make({m, n}, 3);
      const auto av = read(a), bv = read(b), c0 = read(c);
      dev.matmul(a, ta, b, tb, c, 0.5, 2.0);
      const auto cv = read(c);
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (std::int64_t p = 0; p < k; ++p) {
            const double x = ta == Transpose::no ? av[i * k + p] : av[p * m + i];
            const double y = tb == Transpose::no ? bv[p * n + j] : bv[j * k + p];
            sum += x * y;
          }
          EXPECT_NEAR(cv[i * n + j], 0.5 * sum + 2.0 * c0[i * n + j], tol());
        }
      }
    }
  }
}

TEST_P(CpuDeviceTest, MatmulWithBetaZeroIgnoresWhatTheOutputHeld) {
  // Devices hand out uninitialised memory: with beta = 0 a NaN left in C must not leak through.
  const Tensor a = make({33, 17}, 1);
  const Tensor b = make({17, 9}, 2);
  Tensor c = dev.empty({33, 9}, GetParam());
  dev.fill(c, std::nan(""));
  dev.matmul(a, Transpose::no, b, Transpose::no, c);
  EXPECT_EQ(dev.first_nonfinite(c), -1);
}

TEST_P(CpuDeviceTest, MatmulRefusesMismatchedShapes) {
  const Tensor a = make({2, 3}, 1);
  const Tensor b = make({4, 2}, 2);
  Tensor c = make({2, 2}, 3);
  EXPECT_THROW(dev.matmul(a, Transpose::no, b, Transpose::no, c), InternalError);
}

TEST_P(CpuDeviceTest, SplitAndMergeHeadsAreInverse) {
  const std::int64_t b = 2, s = 3, n = 2, d = 4;
  const Tensor x = make({b * s, n * d}, 4);
  Tensor heads = dev.empty({b * n, s, d}, GetParam());
  dev.split_heads(x, b, n, heads);
  const auto xv = read(x), hv = read(heads);
  // head-major element (batch bi, head hi, position si, feature di)
  for (std::int64_t bi = 0; bi < b; ++bi) {
    for (std::int64_t hi = 0; hi < n; ++hi) {
      for (std::int64_t si = 0; si < s; ++si) {
        for (std::int64_t di = 0; di < d; ++di) {
          EXPECT_EQ(hv[((bi * n + hi) * s + si) * d + di], xv[(bi * s + si) * n * d + hi * d + di]);
        }
      }
    }
  }
  Tensor back = dev.empty(x.extents(), GetParam());
  dev.merge_heads(heads, b, n, back);
  EXPECT_EQ(read(back), xv);
}

/// The message an operation throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& operation) {
  try {
    operation();
  } catch (const InternalError& e) {
    return e.what();
  }
  return "";
}

TEST_P(CpuDeviceTest, ShapeErrorsSayTheFormEachOperandMustHave) {
  // A 2-D x where merge_heads wants [b*n, s, h/n]: the all-gathered blocks of lesson 01 not
  // reshaped to [t, m, out/t] first.
  const Tensor flat = make({16, 32}, 7);
  Tensor merged = dev.empty({8, 64}, GetParam());
  EXPECT_EQ(error_of([&] { dev.merge_heads(flat, 1, 2, merged); }),
            "CpuDevice::merge_heads: x [16, 32] -> out [8, 64] with batch b = 1, heads n = 2: x "
            "must be [b*n, s, h/n] (head-major, b*n = 2 slabs) and out [b*s, h] (token-major); x "
            "is not 3-D");
  Tensor heads = dev.empty({2, 8, 16}, GetParam());
  EXPECT_EQ(error_of([&] { dev.split_heads(flat, 1, 2, heads); }),
            "CpuDevice::split_heads: x [16, 32] -> out [2, 8, 16] with batch b = 1, heads n = 2: "
            "x must be [b*s, h] (token-major) and out [b*n, s, h/n] (head-major); for this x "
            "that is out [2, 16, 16]");
  const Tensor a = make({2, 3}, 1);
  const Tensor b = make({4, 2}, 2);
  Tensor c = make({2, 2}, 3);
  EXPECT_NE(error_of([&] {
              dev.matmul(a, Transpose::no, b, Transpose::no, c);
            }).find("op(A)'s k = 3 and op(B)'s k = 4 differ"),
            std::string::npos);
}

TEST_P(CpuDeviceTest, CausalSoftmaxMasksAndNormalises) {
  const std::int64_t s = 4;
  const Tensor scores = make({2, s, s}, 5);
  Tensor probs = dev.empty(scores.extents(), GetParam());
  dev.causal_softmax_forward(scores, 0.7, probs);
  const auto sv = read(scores), pv = read(probs);
  for (std::int64_t r = 0; r < 2 * s; ++r) {
    const std::int64_t i = r % s;
    double denom = 0;
    for (std::int64_t j = 0; j <= i; ++j) denom += std::exp(0.7 * sv[r * s + j]);
    for (std::int64_t j = 0; j < s; ++j) {
      const double expected = j <= i ? std::exp(0.7 * sv[r * s + j]) / denom : 0.0;
      EXPECT_NEAR(pv[r * s + j], expected, tol());
      if (j > i) {
        EXPECT_EQ(pv[r * s + j], 0.0) << "masked entry must be exactly zero";
      }
    }
  }
}

TEST_P(CpuDeviceTest, CausalSoftmaxBackwardMatchesFiniteDifferences) {
  if (GetParam() != DType::f64) GTEST_SKIP() << "finite differences need f64";
  const std::int64_t s = 3;
  Tensor scores = make({1, s, s}, 6);
  const Tensor upstream = make({1, s, s}, 7);
  Tensor probs = dev.empty(scores.extents(), DType::f64);
  dev.causal_softmax_forward(scores, 0.5, probs);
  Tensor grad = dev.empty(scores.extents(), DType::f64);
  dev.causal_softmax_backward(probs, upstream, 0.5, grad);
  const auto g = read(grad), u = read(upstream);
  auto loss = [&](const std::vector<double>& sv) {
    Tensor t = dev.empty(scores.extents(), DType::f64), p = dev.empty(scores.extents(), DType::f64);
    dev.upload(sv, t);
    dev.causal_softmax_forward(t, 0.5, p);
    const auto pv = read(p);
    double l = 0;
    for (std::size_t i = 0; i < pv.size(); ++i) l += pv[i] * u[i];
    return l;
  };
  auto sv = read(scores);
  for (std::size_t i = 0; i < sv.size(); ++i) {
    auto plus = sv, minus = sv;
    plus[i] += 1e-6;
    minus[i] -= 1e-6;
    EXPECT_NEAR(g[i], (loss(plus) - loss(minus)) / 2e-6, 1e-8);
  }
}

TEST_P(CpuDeviceTest, GeluAndItsDerivative) {
  Tensor x = dev.empty({4}, GetParam());
  dev.upload(std::vector<double>{0.0, 1.0, -1.0, 8.0}, x);
  Tensor y = dev.empty({4}, GetParam());
  dev.gelu_forward(x, y);
  const auto yv = read(y);
  EXPECT_NEAR(yv[0], 0.0, tol());
  EXPECT_NEAR(yv[1], 0.8411919906082768, tol());
  EXPECT_NEAR(yv[2], -0.15880800939172324, tol());
  EXPECT_NEAR(yv[3], 8.0, tol());
  if (GetParam() != DType::f64) return;
  Tensor ones = dev.empty({4}, DType::f64), dx = dev.empty({4}, DType::f64);
  dev.fill(ones, 1.0);
  dev.gelu_backward(x, ones, dx);
  const auto dv = read(dx);
  const std::vector<double> at = {0.0, 1.0, -1.0, 8.0};
  for (std::size_t i = 0; i < at.size(); ++i) {
    Tensor p = dev.empty({2}, DType::f64), q = dev.empty({2}, DType::f64);
    dev.upload(std::vector<double>{at[i] + 1e-6, at[i] - 1e-6}, p);
    dev.gelu_forward(p, q);
    const auto qv = read(q);
    EXPECT_NEAR(dv[i], (qv[0] - qv[1]) / 2e-6, 1e-8);
  }
}

TEST_P(CpuDeviceTest, LayerNormPiecesMatchTheFormula) {
  const std::int64_t rows = 3, cols = 5;
  const Tensor x = make({rows, cols}, 8);
  const Tensor gamma = make({cols}, 9), beta = make({cols}, 10), dy = make({rows, cols}, 11);
  Tensor mean = dev.empty({rows}, GetParam()), var = dev.empty({rows}, GetParam());
  dev.row_sum(x, mean);
  dev.scale(mean, 1.0 / cols);
  dev.row_sum_squared_deviation(x, mean, var);
  dev.scale(var, 1.0 / cols);
  Tensor xhat = dev.empty(x.extents(), GetParam()), rstd = dev.empty({rows}, GetParam()),
         y = dev.empty(x.extents(), GetParam());
  dev.layernorm_apply(x, mean, var, 1e-5, gamma, beta, xhat, rstd, y);
  const auto xv = read(x), gv = read(gamma), bv = read(beta), yv = read(y);
  for (std::int64_t r = 0; r < rows; ++r) {
    double mu = 0, v = 0;
    for (std::int64_t c = 0; c < cols; ++c) mu += xv[r * cols + c] / cols;
    for (std::int64_t c = 0; c < cols; ++c) v += std::pow(xv[r * cols + c] - mu, 2) / cols;
    for (std::int64_t c = 0; c < cols; ++c) {
      EXPECT_NEAR(yv[r * cols + c], (xv[r * cols + c] - mu) / std::sqrt(v + 1e-5) * gv[c] + bv[c],
                  tol());
    }
  }
  Tensor sums = dev.empty({rows, 2}, GetParam()), dx = dev.empty(x.extents(), GetParam());
  dev.layernorm_backward_sums(dy, gamma, xhat, sums);
  dev.layernorm_backward_input(dy, gamma, xhat, rstd, sums, cols, dx);
  // dx sums to zero over each row: LayerNorm's output does not change when x shifts.
  const auto dxv = read(dx);
  for (std::int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (std::int64_t c = 0; c < cols; ++c) s += dxv[r * cols + c];
    EXPECT_NEAR(s, 0.0, 10 * tol());
  }
}

TEST_P(CpuDeviceTest, BiasAddAndColumnSum) {
  Tensor y = make({3, 2}, 12);
  const auto y0 = read(y);
  Tensor bias = dev.empty({2}, GetParam());
  dev.upload(std::vector<double>{1.0, -2.0}, bias);
  dev.add_bias(y, bias);
  const auto yv = read(y);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(yv[i], y0[i] + (i % 2 == 0 ? 1.0 : -2.0), tol());
  Tensor sums = dev.empty({2}, GetParam());
  dev.column_sum(y, sums);
  const auto sv = read(sums);
  EXPECT_NEAR(sv[0], yv[0] + yv[2] + yv[4], tol());
  EXPECT_NEAR(sv[1], yv[1] + yv[3] + yv[5], tol());
}

TEST_P(CpuDeviceTest, GatherAndScatterAddRowsSkipOtherShards) {
  Tensor table = make({3, 2}, 13);
  const auto tv = read(table);
  const std::vector<std::int64_t> rows = {2, -1, 0, 3, 2};  // -1 and 3: another shard's ids
  Tensor out = dev.empty({5, 2}, GetParam());
  dev.gather_rows(table, rows, out);
  const auto ov = read(out);
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(ov[0 * 2 + c], tv[2 * 2 + c]);
    EXPECT_EQ(ov[1 * 2 + c], 0.0);
    EXPECT_EQ(ov[2 * 2 + c], tv[0 * 2 + c]);
    EXPECT_EQ(ov[3 * 2 + c], 0.0);
    EXPECT_EQ(ov[4 * 2 + c], tv[2 * 2 + c]);
  }
  Tensor grad = dev.zeros({3, 2}, GetParam());
  dev.scatter_add_rows(out, rows, grad);
  const auto gv = read(grad);
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(gv[0 * 2 + c], tv[0 * 2 + c], tol());
    EXPECT_EQ(gv[1 * 2 + c], 0.0);
    EXPECT_NEAR(gv[2 * 2 + c], 2 * tv[2 * 2 + c], tol());  // row 2 was looked up twice
  }
}

TEST_P(CpuDeviceTest, CrossEntropyPiecesMatchTheFormula) {
  Tensor logits = make({2, 3}, 14);
  const auto x = read(logits);
  Tensor max = dev.empty({2}, GetParam());
  dev.row_max(logits, max);
  const auto mv = read(max);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(mv[r], std::max({x[3 * r], x[3 * r + 1], x[3 * r + 2]}));
  }
  const std::vector<std::int64_t> targets = {1, 5};  // row 1's target is in another shard
  Tensor sums = dev.empty({2, 2}, GetParam());
  dev.cross_entropy_sums(logits, max, targets, sums);
  const auto sv = read(sums);
  for (int r = 0; r < 2; ++r) {
    double e = 0;
    for (int c = 0; c < 3; ++c) e += std::exp(x[3 * r + c] - mv[r]);
    EXPECT_NEAR(sv[2 * r], e, tol());
  }
  EXPECT_EQ(sv[1], x[1]);
  EXPECT_EQ(sv[3], 0.0);
  Tensor d = dev.empty({2, 3}, GetParam());
  dev.cross_entropy_backward(logits, max, sums, targets, 0.5, d);
  const auto dv = read(d);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      const double softmax = std::exp(x[3 * r + c] - mv[r]) / sv[2 * r];
      const double onehot = r == 0 && c == 1 ? 1.0 : 0.0;
      EXPECT_NEAR(dv[3 * r + c], 0.5 * (softmax - onehot), tol());
    }
  }
}

std::string dtype_label(const testing::TestParamInfo<DType>& p) {
  return std::string(dtype_name(p.param));
}
INSTANTIATE_TEST_SUITE_P(Dtypes, CpuDeviceTest, testing::Values(DType::f64, DType::f32),
                         dtype_label);

TEST(CpuDevice, HoldsBf16RoundedToNearestEven) {
  CpuDevice dev;
  Tensor x = dev.empty({4}, DType::bf16);
  EXPECT_EQ(x.bytes(), 8u);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even, 1; 1 + 3 2^-8 rounds up
  const std::vector<double> values{1.0 + 0x1p-8, 1.0 + 3 * 0x1p-8, -3.5, 1e-3};
  dev.upload(values, x);
  std::vector<double> back(4);
  dev.download(x, back);
  EXPECT_EQ(back, (std::vector<double>{1.0, 1.0 + 0x1p-6, -3.5, 0.0009994506835937500}));
  EXPECT_EQ(dev.first_nonfinite(x), -1);
  dev.fill(x, 1e39);  // past bf16's largest finite value (about 3.39e38)
  EXPECT_EQ(dev.first_nonfinite(x), 0);
  EXPECT_NE(dev.description().find("bf16 GEMM by "), std::string::npos) << dev.description();
}

}  // namespace
}  // namespace tplab
