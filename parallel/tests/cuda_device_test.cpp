// CudaDevice against CpuDevice, operation by operation, on random inputs with ragged extents:
// f64 and f32 against the CPU in the same dtype, bf16 against the CPU's f32 on the same
// (bf16-rounded) inputs, where the GPU may differ by one rounding of its result to bf16.
// Skips, saying why, on a machine without a GPU; fails where a GPU's driver is too old.
#include "device/cuda/cuda_device.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/bf16.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

/// A tensor with the same values on the CPU and on the GPU.
struct Pair {
  Tensor cpu, gpu;
};

class CudaDeviceTest : public testing::TestWithParam<DType> {
 protected:
  void SetUp() override {
    try {
      CudaDevice::visible_devices();
    } catch (const NoDeviceError& e) {
      // No GPU here: skip. A GPU the driver or CUDA cannot use is a failure, and says why.
      if (e.reason() == NoDeviceError::Reason::absent) GTEST_SKIP() << e.what();
      FAIL() << e.what();
    }
    gpu = std::make_unique<CudaDevice>(0);
  }

  DType cpu_dtype() const { return GetParam() == DType::bf16 ? DType::f32 : GetParam(); }

  /// The value the GPU's dtype holds nearest to v.
  double representable(double v) const {
    return GetParam() == DType::bf16 ? float_from_bf16(bf16_from_double(v)) : v;
  }

  Pair make(const Extents& e, unsigned seed, double low = -1.0, double high = 1.0) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(low, high);
    std::vector<double> v(static_cast<std::size_t>(element_count(e)));
    for (double& x : v) x = representable(dist(gen));
    return upload(e, v);
  }
  Pair upload(const Extents& e, const std::vector<double>& v) {
    Pair p{cpu.empty(e, cpu_dtype()), gpu->empty(e, GetParam())};
    cpu.upload(v, p.cpu);
    gpu->upload(v, p.gpu);
    return p;
  }
  Pair empty(const Extents& e) { return {cpu.empty(e, cpu_dtype()), gpu->empty(e, GetParam())}; }

  std::vector<double> read(Device& d, const Tensor& t) {
    std::vector<double> v(static_cast<std::size_t>(t.numel()));
    d.download(t, v);
    return v;
  }

  /// Every element within the dtype's bound: one rounding of the result for bf16 (2^-8 of the
  /// value), the order of summation for f32 and f64; plus a share of the RMS for results that
  /// cancel to near zero.
  void expect_close(const Pair& p, const char* what) {
    const auto want = read(cpu, p.cpu);
    const auto got = read(*gpu, p.gpu);
    ASSERT_EQ(want.size(), got.size());
    double sum = 0;
    for (double w : want) sum += w * w;
    const double rms = want.empty() ? 0 : std::sqrt(sum / static_cast<double>(want.size()));
    const double rel = GetParam() == DType::f64 ? 1e-12 : GetParam() == DType::f32 ? 1e-5 : 0x1p-8;
    const double abs = GetParam() == DType::f64 ? 1e-12 : 1e-5;
    int reported = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const bool ok = std::abs(got[i] - want[i]) <= rel * std::abs(want[i]) + abs * rms;
      if (!ok && reported++ < 5) {
        ADD_FAILURE() << what << " [" << i << "]: gpu " << got[i] << " cpu " << want[i];
      }
    }
  }

  CpuDevice cpu;
  std::unique_ptr<CudaDevice> gpu;
};

TEST_P(CudaDeviceTest, UploadDownloadFillAndCopy) {
  Pair a = make({37, 70}, 1);
  EXPECT_EQ(read(cpu, a.cpu), read(*gpu, a.gpu));  // the values are representable: exact
  Pair b = empty({37, 70});
  cpu.copy(a.cpu, b.cpu);
  gpu->copy(a.gpu, b.gpu);
  EXPECT_EQ(read(cpu, b.cpu), read(*gpu, b.gpu));
  cpu.fill(b.cpu, 0.5);
  gpu->fill(b.gpu, 0.5);
  EXPECT_EQ(read(cpu, b.cpu), read(*gpu, b.gpu));
  Tensor z = gpu->zeros({0, 5}, GetParam());
  EXPECT_TRUE(read(*gpu, z).empty());
}

TEST_P(CudaDeviceTest, MatmulEveryTransposeWithAlphaAndBeta) {
  const std::int64_t m = 45, n = 70, k = 33;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Pair a = make(ta ? Extents{k, m} : Extents{m, k}, 2);
      Pair b = make(tb ? Extents{n, k} : Extents{k, n}, 3);
      Pair c = make({m, n}, 4);
      const Transpose opa = ta ? Transpose::yes : Transpose::no;
      const Transpose opb = tb ? Transpose::yes : Transpose::no;
      // [m, k] x [k, n] -> [m, n]
      cpu.matmul(a.cpu, opa, b.cpu, opb, c.cpu, 0.75, 0.5);
      gpu->matmul(a.gpu, opa, b.gpu, opb, c.gpu, 0.75, 0.5);
      expect_close(c, ta ? (tb ? "matmul TT" : "matmul TN") : (tb ? "matmul NT" : "matmul NN"));
    }
  }
}

TEST_P(CudaDeviceTest, BatchedMatmulEveryTranspose) {
  const std::int64_t batch = 6, m = 17, n = 9, k = 20;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Pair a = make(ta ? Extents{batch, k, m} : Extents{batch, m, k}, 5);
      Pair b = make(tb ? Extents{batch, n, k} : Extents{batch, k, n}, 6);
      Pair c = empty({batch, m, n});
      const Transpose opa = ta ? Transpose::yes : Transpose::no;
      const Transpose opb = tb ? Transpose::yes : Transpose::no;
      // [batch, m, k] x [batch, k, n] -> [batch, m, n]
      cpu.batched_matmul(a.cpu, opa, b.cpu, opb, c.cpu, 0.5, 0.0);
      gpu->batched_matmul(a.gpu, opa, b.gpu, opb, c.gpu, 0.5, 0.0);
      expect_close(c, "batched_matmul");
    }
  }
}

TEST_P(CudaDeviceTest, ElementwiseAndBias) {
  Pair y = make({37, 70}, 7);
  Pair x = make({37, 70}, 8);
  Pair bias = make({70}, 9);
  cpu.add_inplace(y.cpu, x.cpu);
  gpu->add_inplace(y.gpu, x.gpu);
  expect_close(y, "add_inplace");
  // each check starts from inputs both devices hold alike, so bf16 rounds once
  Pair z = make({37, 70}, 22);
  cpu.scale(z.cpu, -1.5);
  gpu->scale(z.gpu, -1.5);
  expect_close(z, "scale");
  cpu.add_bias(x.cpu, bias.cpu);
  gpu->add_bias(x.gpu, bias.gpu);
  expect_close(x, "add_bias");
  Pair g = empty({37, 70});
  Pair wide = make({37, 70}, 10, -4.0, 4.0);
  cpu.gelu_forward(wide.cpu, g.cpu);
  gpu->gelu_forward(wide.gpu, g.gpu);
  expect_close(g, "gelu_forward");
  Pair dx = empty({37, 70});
  Pair dy = make({37, 70}, 23);
  cpu.gelu_backward(wide.cpu, dy.cpu, dx.cpu);
  gpu->gelu_backward(wide.gpu, dy.gpu, dx.gpu);
  expect_close(dx, "gelu_backward");
}

TEST_P(CudaDeviceTest, ElementwiseOverSeveralPassesOfTheGrid) {
  // more elements than one pass of the largest grid takes (16 blocks per multiprocessor of
  // 256 threads x 8 elements: 4.3 M on 132 multiprocessors), with a ragged end
  const Extents big{4099, 1201};
  Pair y = make(big, 30), x = make(big, 31), out = empty(big);
  cpu.add_inplace(y.cpu, x.cpu);
  gpu->add_inplace(y.gpu, x.gpu);
  expect_close(y, "add_inplace, several passes");
  cpu.gelu_forward(x.cpu, out.cpu);
  gpu->gelu_forward(x.gpu, out.gpu);
  expect_close(out, "gelu_forward, several passes");
  EXPECT_EQ(gpu->first_nonfinite(x.gpu), -1);
}

TEST_P(CudaDeviceTest, ColumnSumsShortAndTall) {
  for (std::int64_t rows : {1, 37, 3001}) {
    Pair x = make({rows, 70}, 11);
    Pair out = make({70}, 12);
    cpu.column_sum(x.cpu, out.cpu, 0.0);
    gpu->column_sum(x.gpu, out.gpu, 0.0);
    expect_close(out, "column_sum");
    Pair more = make({70}, 24);
    cpu.column_sum(x.cpu, more.cpu, 0.5);
    gpu->column_sum(x.gpu, more.gpu, 0.5);
    expect_close(more, "column_sum beta 0.5");
  }
}

TEST_P(CudaDeviceTest, CausalSoftmaxForwardAndBackward) {
  for (std::int64_t s : {1, 5, 40, 257}) {
    Pair scores = make({3, s, s}, 13, -3.0, 3.0);
    Pair probs = empty({3, s, s});
    cpu.causal_softmax_forward(scores.cpu, 0.3, probs.cpu);
    gpu->causal_softmax_forward(scores.gpu, 0.3, probs.gpu);
    expect_close(probs, "causal_softmax_forward");
    // backward from the CPU's probabilities, so both start from the same values
    const auto p = read(cpu, probs.cpu);
    std::vector<double> held(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) held[i] = representable(p[i]);
    Pair same = upload({3, s, s}, held);
    Pair dprobs = make({3, s, s}, 14);
    Pair dscores = empty({3, s, s});
    cpu.causal_softmax_backward(same.cpu, dprobs.cpu, 0.3, dscores.cpu);
    gpu->causal_softmax_backward(same.gpu, dprobs.gpu, 0.3, dscores.gpu);
    expect_close(dscores, "causal_softmax_backward");
  }
}

TEST_P(CudaDeviceTest, SplitAndMergeHeadsAreExactInverses) {
  const std::int64_t b = 3, s = 5, n = 4, d = 7;
  Pair x = make({b * s, n * d}, 15);
  Pair heads = empty({b * n, s, d});
  cpu.split_heads(x.cpu, b, n, heads.cpu);
  gpu->split_heads(x.gpu, b, n, heads.gpu);
  EXPECT_EQ(read(cpu, heads.cpu), read(*gpu, heads.gpu));
  Pair back = empty({b * s, n * d});
  cpu.merge_heads(heads.cpu, b, n, back.cpu);
  gpu->merge_heads(heads.gpu, b, n, back.gpu);
  EXPECT_EQ(read(*gpu, back.gpu), read(cpu, x.cpu));
}

TEST_P(CudaDeviceTest, FirstNonfiniteFindsTheFirst) {
  std::vector<double> v(10000, 1.0);
  Pair clean = upload({100, 100}, v);
  EXPECT_EQ(gpu->first_nonfinite(clean.gpu), -1);
  v[7777] = std::numeric_limits<double>::quiet_NaN();
  v[4242] = std::numeric_limits<double>::infinity();
  Pair dirty = upload({100, 100}, v);
  EXPECT_EQ(gpu->first_nonfinite(dirty.gpu), 4242);
  EXPECT_EQ(cpu.first_nonfinite(dirty.cpu), 4242);
}

TEST_P(CudaDeviceTest, LayerNormParts) {
  const std::int64_t rows = 37, cols = 70;
  Pair x = make({rows, cols}, 16, -2.0, 3.0);
  Pair mean = empty({rows}), var = empty({rows});
  cpu.row_sum(x.cpu, mean.cpu);
  gpu->row_sum(x.gpu, mean.gpu);
  expect_close(mean, "row_sum");
  // the statistics from the CPU on both, rounded to the GPU's dtype
  auto held = [&](const Tensor& t) {
    auto v = read(cpu, t);
    for (double& e : v) e = representable(e / cols);
    return v;
  };
  Pair mean_same = upload({rows}, held(mean.cpu));
  cpu.row_sum_squared_deviation(x.cpu, mean_same.cpu, var.cpu);
  gpu->row_sum_squared_deviation(x.gpu, mean_same.gpu, var.gpu);
  expect_close(var, "row_sum_squared_deviation");
  Pair var_same = upload({rows}, held(var.cpu));
  Pair gamma = make({cols}, 17, 0.5, 1.5), beta = make({cols}, 18);
  Pair xhat = empty({rows, cols}), rstd = empty({rows}), y = empty({rows, cols});
  cpu.layernorm_apply(x.cpu, mean_same.cpu, var_same.cpu, 1e-5, gamma.cpu, beta.cpu, xhat.cpu,
                      rstd.cpu, y.cpu);
  gpu->layernorm_apply(x.gpu, mean_same.gpu, var_same.gpu, 1e-5, gamma.gpu, beta.gpu, xhat.gpu,
                       rstd.gpu, y.gpu);
  expect_close(xhat, "layernorm_apply xhat");
  expect_close(rstd, "layernorm_apply rstd");
  expect_close(y, "layernorm_apply y");

  auto rounded = [&](const Tensor& t) {
    auto v = read(cpu, t);
    for (double& e : v) e = representable(e);
    return v;
  };
  Pair dy = make({rows, cols}, 19);
  Pair xhat_held = upload({rows, cols}, rounded(xhat.cpu));
  Pair rstd_held = upload({rows}, rounded(rstd.cpu));
  Pair sums = empty({rows, 2});
  cpu.layernorm_backward_sums(dy.cpu, gamma.cpu, xhat_held.cpu, sums.cpu);
  gpu->layernorm_backward_sums(dy.gpu, gamma.gpu, xhat_held.gpu, sums.gpu);
  expect_close(sums, "layernorm_backward_sums");
  Pair sums_same = upload({rows, 2}, rounded(sums.cpu));
  Pair dx = empty({rows, cols});
  cpu.layernorm_backward_input(dy.cpu, gamma.cpu, xhat_held.cpu, rstd_held.cpu, sums_same.cpu, cols,
                               dx.cpu);
  gpu->layernorm_backward_input(dy.gpu, gamma.gpu, xhat_held.gpu, rstd_held.gpu, sums_same.gpu,
                                cols, dx.gpu);
  expect_close(dx, "layernorm_backward_input");
  Pair dgamma = empty({cols}), dbeta = empty({cols});
  cpu.layernorm_backward_params(dy.cpu, xhat_held.cpu, dgamma.cpu, dbeta.cpu);
  gpu->layernorm_backward_params(dy.gpu, xhat_held.gpu, dgamma.gpu, dbeta.gpu);
  expect_close(dgamma, "layernorm_backward_params dgamma");
  expect_close(dbeta, "layernorm_backward_params dbeta");
}

TEST_P(CudaDeviceTest, VocabularyShardLookupAndCrossEntropy) {
  // A shard of 37 vocabulary rows; ids and targets outside [0, 37) belong to other ranks.
  const std::int64_t vocab = 37, h = 70, rows = 45;
  std::vector<std::int64_t> ids(rows), targets(rows);
  std::mt19937 gen(21);
  std::uniform_int_distribution<std::int64_t> pick(-5, vocab + 5);
  for (auto& i : ids) i = pick(gen);
  for (auto& t : targets) t = pick(gen);
  ids[3] = ids[9] = ids[30] = 4;  // repeated rows: the scatter adds them in order
  Pair table = make({vocab, h}, 17);
  Pair out = empty({rows, h});
  cpu.gather_rows(table.cpu, ids, out.cpu);
  gpu->gather_rows(table.gpu, ids, out.gpu);
  EXPECT_EQ(read(cpu, out.cpu), read(*gpu, out.gpu));  // a copy: exact
  // Eighths between -2 and 2: every sum of a few of them is exact in bf16 too, so the scatter's
  // result must be exact in every dtype.
  const auto eighths = [&gen](std::int64_t count) {
    std::uniform_int_distribution<int> k(-16, 16);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (double& x : v) x = k(gen) / 8.0;
    return v;
  };
  Pair grad_table = upload({vocab, h}, eighths(vocab * h));
  Pair grad = upload({rows, h}, eighths(rows * h));
  cpu.scatter_add_rows(grad.cpu, ids, grad_table.cpu);
  gpu->scatter_add_rows(grad.gpu, ids, grad_table.gpu);
  EXPECT_EQ(read(cpu, grad_table.cpu), read(*gpu, grad_table.gpu));

  Pair logits = make({rows, vocab}, 19, -4.0, 4.0);
  Pair max = empty({rows});
  cpu.row_max(logits.cpu, max.cpu);
  gpu->row_max(logits.gpu, max.gpu);
  EXPECT_EQ(read(cpu, max.cpu), read(*gpu, max.gpu));  // a maximum: exact
  Pair sums = empty({rows, 2});
  cpu.cross_entropy_sums(logits.cpu, max.cpu, targets, sums.cpu);
  gpu->cross_entropy_sums(logits.gpu, max.gpu, targets, sums.gpu);
  expect_close(sums, "cross_entropy_sums");
  // backward from the CPU's sums, so both start from the same values
  const auto cpu_sums = read(cpu, sums.cpu);
  std::vector<double> held(cpu_sums.size());
  for (std::size_t i = 0; i < held.size(); ++i) held[i] = representable(cpu_sums[i]);
  Pair same = upload({rows, 2}, held);
  Pair dlogits = empty({rows, vocab});
  cpu.cross_entropy_backward(logits.cpu, max.cpu, same.cpu, targets, 0.25, dlogits.cpu);
  gpu->cross_entropy_backward(logits.gpu, max.gpu, same.gpu, targets, 0.25, dlogits.gpu);
  expect_close(dlogits, "cross_entropy_backward");
}

TEST_P(CudaDeviceTest, OptimizerOpsAndThePaddingMask) {
  // the vocabulary's padded columns: exact on every dtype
  Pair logits = make({37, 70}, 40);
  const double inf = std::numeric_limits<double>::infinity();
  cpu.fill_columns_from(logits.cpu, 61, -inf);
  gpu->fill_columns_from(logits.gpu, 61, -inf);
  EXPECT_EQ(read(cpu, logits.cpu), read(*gpu, logits.gpu));
  Pair g = make({4099, 37}, 41);  // more elements than one block's pass
  const double want = cpu.sum_of_squares(g.cpu), got = gpu->sum_of_squares(g.gpu);
  EXPECT_NEAR(got, want, 1e-12 * want);  // both in f64 from the same values
  EXPECT_EQ(got, gpu->sum_of_squares(g.gpu)) << "the same tensor, the same bits";
  if (GetParam() == DType::bf16) GTEST_SKIP() << "AdamW updates f64 or f32 (master) weights";
  Pair p = make({37, 70}, 42), m = make({37, 70}, 43, -0.1, 0.1), v = make({37, 70}, 44, 0, 0.01);
  const AdamWStep step{.learning_rate = 0.01,
                       .beta1 = 0.9,
                       .beta2 = 0.95,
                       .eps = 1e-8,
                       .weight_decay = 0.1,
                       .step = 3};
  Pair grad = make({37, 70}, 45);
  cpu.adamw_update(p.cpu, grad.cpu, m.cpu, v.cpu, step);
  gpu->adamw_update(p.gpu, grad.gpu, m.gpu, v.gpu, step);
  expect_close(p, "adamw_update: p");
  expect_close(m, "adamw_update: m");
  expect_close(v, "adamw_update: v");
}

TEST_P(CudaDeviceTest, RefusesHostTensorsAndMisfits) {
  Pair a = make({4, 4}, 20);
  EXPECT_THROW(gpu->add_inplace(a.gpu, a.cpu), InternalError);
  Pair b = make({4, 5}, 21), c = empty({4, 4});
  EXPECT_THROW(gpu->matmul(a.gpu, Transpose::no, b.gpu, Transpose::no, c.gpu, 1.0, 0.0),
               InternalError);
  EXPECT_THROW(gpu->causal_softmax_forward(b.gpu, 1.0, b.gpu), InternalError);
}

std::string dtype_label(const testing::TestParamInfo<DType>& param) {
  return std::string(dtype_name(param.param));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudaDeviceTest,
                         testing::Values(DType::f64, DType::f32, DType::bf16), dtype_label);

}  // namespace
}  // namespace tplab
