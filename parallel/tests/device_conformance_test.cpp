// The checks of device_conformance.hpp, operation by operation; instantiated per backend.
#include "device_conformance.hpp"

#include <limits>

#include "core/error.hpp"

namespace tplab {
namespace {

TEST_P(DeviceConformance, UploadDownloadFillAndCopy) {
  Pair a = make({37, 70}, 1);
  EXPECT_EQ(read(cpu, a.cpu), read(*dut, a.dut));  // the values are representable: exact
  Pair b = empty({37, 70});
  cpu.copy(a.cpu, b.cpu);
  dut->copy(a.dut, b.dut);
  EXPECT_EQ(read(cpu, b.cpu), read(*dut, b.dut));
  cpu.fill(b.cpu, 0.5);
  dut->fill(b.dut, 0.5);
  EXPECT_EQ(read(cpu, b.cpu), read(*dut, b.dut));
  Tensor z = dut->zeros({0, 5}, dtype());
  EXPECT_TRUE(read(*dut, z).empty());
}

TEST_P(DeviceConformance, MatmulEveryTransposeWithAlphaAndBeta) {
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
      dut->matmul(a.dut, opa, b.dut, opb, c.dut, 0.75, 0.5);
      expect_close(c, ta ? (tb ? "matmul TT" : "matmul TN") : (tb ? "matmul NT" : "matmul NN"));
    }
  }
}

TEST_P(DeviceConformance, BatchedMatmulEveryTranspose) {
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
      dut->batched_matmul(a.dut, opa, b.dut, opb, c.dut, 0.5, 0.0);
      expect_close(c, "batched_matmul");
    }
  }
}

TEST_P(DeviceConformance, ElementwiseAndBias) {
  Pair y = make({37, 70}, 7);
  Pair x = make({37, 70}, 8);
  Pair bias = make({70}, 9);
  cpu.add_inplace(y.cpu, x.cpu);
  dut->add_inplace(y.dut, x.dut);
  expect_close(y, "add_inplace");
  // each check starts from inputs both devices hold alike, so bf16 rounds once
  Pair z = make({37, 70}, 22);
  cpu.scale(z.cpu, -1.5);
  dut->scale(z.dut, -1.5);
  expect_close(z, "scale");
  cpu.add_bias(x.cpu, bias.cpu);
  dut->add_bias(x.dut, bias.dut);
  expect_close(x, "add_bias");
  Pair g = empty({37, 70});
  Pair wide = make({37, 70}, 10, -4.0, 4.0);
  cpu.gelu_forward(wide.cpu, g.cpu);
  dut->gelu_forward(wide.dut, g.dut);
  expect_close(g, "gelu_forward");
  Pair dx = empty({37, 70});
  Pair dy = make({37, 70}, 23);
  cpu.gelu_backward(wide.cpu, dy.cpu, dx.cpu);
  dut->gelu_backward(wide.dut, dy.dut, dx.dut);
  expect_close(dx, "gelu_backward");
}

TEST_P(DeviceConformance, ElementwiseOverSeveralPassesOfTheGrid) {
  // more elements than one pass of the largest grid takes (16 blocks per multiprocessor of
  // 256 threads x 8 elements: 4.3 M on 132 multiprocessors), with a ragged end
  const Extents big{4099, 1201};
  Pair y = make(big, 30), x = make(big, 31), out = empty(big);
  cpu.add_inplace(y.cpu, x.cpu);
  dut->add_inplace(y.dut, x.dut);
  expect_close(y, "add_inplace, several passes");
  cpu.gelu_forward(x.cpu, out.cpu);
  dut->gelu_forward(x.dut, out.dut);
  expect_close(out, "gelu_forward, several passes");
  EXPECT_EQ(dut->first_nonfinite(x.dut), -1);
}

TEST_P(DeviceConformance, ColumnSumsShortAndTall) {
  for (std::int64_t rows : {1, 37, 3001}) {
    Pair x = make({rows, 70}, 11);
    Pair out = make({70}, 12);
    cpu.column_sum(x.cpu, out.cpu, 0.0);
    dut->column_sum(x.dut, out.dut, 0.0);
    expect_close(out, "column_sum");
    Pair more = make({70}, 24);
    cpu.column_sum(x.cpu, more.cpu, 0.5);
    dut->column_sum(x.dut, more.dut, 0.5);
    expect_close(more, "column_sum beta 0.5");
  }
}

TEST_P(DeviceConformance, CausalSoftmaxForwardAndBackward) {
  for (std::int64_t s : {1, 5, 40, 257}) {
    Pair scores = make({3, s, s}, 13, -3.0, 3.0);
    Pair probs = empty({3, s, s});
    cpu.causal_softmax_forward(scores.cpu, 0.3, probs.cpu);
    dut->causal_softmax_forward(scores.dut, 0.3, probs.dut);
    expect_close(probs, "causal_softmax_forward");
    // backward from the CPU's probabilities, so both start from the same values
    const auto p = read(cpu, probs.cpu);
    std::vector<double> held(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) held[i] = representable(p[i]);
    Pair same = upload({3, s, s}, held);
    Pair dprobs = make({3, s, s}, 14);
    Pair dscores = empty({3, s, s});
    cpu.causal_softmax_backward(same.cpu, dprobs.cpu, 0.3, dscores.cpu);
    dut->causal_softmax_backward(same.dut, dprobs.dut, 0.3, dscores.dut);
    expect_close(dscores, "causal_softmax_backward");
  }
}

TEST_P(DeviceConformance, SplitAndMergeHeadsAreExactInverses) {
  const std::int64_t b = 3, s = 5, n = 4, d = 7;
  Pair x = make({b * s, n * d}, 15);
  Pair heads = empty({b * n, s, d});
  cpu.split_heads(x.cpu, b, n, heads.cpu);
  dut->split_heads(x.dut, b, n, heads.dut);
  EXPECT_EQ(read(cpu, heads.cpu), read(*dut, heads.dut));
  Pair back = empty({b * s, n * d});
  cpu.merge_heads(heads.cpu, b, n, back.cpu);
  dut->merge_heads(heads.dut, b, n, back.dut);
  EXPECT_EQ(read(*dut, back.dut), read(cpu, x.cpu));
}

TEST_P(DeviceConformance, FirstNonfiniteFindsTheFirst) {
  std::vector<double> v(10000, 1.0);
  Pair clean = upload({100, 100}, v);
  EXPECT_EQ(dut->first_nonfinite(clean.dut), -1);
  v[7777] = std::numeric_limits<double>::quiet_NaN();
  v[4242] = std::numeric_limits<double>::infinity();
  Pair dirty = upload({100, 100}, v);
  EXPECT_EQ(dut->first_nonfinite(dirty.dut), 4242);
  EXPECT_EQ(cpu.first_nonfinite(dirty.cpu), 4242);
}

TEST_P(DeviceConformance, LayerNormParts) {
  const std::int64_t rows = 37, cols = 70;
  Pair x = make({rows, cols}, 16, -2.0, 3.0);
  Pair mean = empty({rows}), var = empty({rows});
  cpu.row_sum(x.cpu, mean.cpu);
  dut->row_sum(x.dut, mean.dut);
  expect_close(mean, "row_sum");
  // the statistics from the CPU on both, rounded to the device's dtype
  auto held = [&](const Tensor& t) {
    auto v = read(cpu, t);
    for (double& e : v) e = representable(e / cols);
    return v;
  };
  Pair mean_same = upload({rows}, held(mean.cpu));
  cpu.row_sum_squared_deviation(x.cpu, mean_same.cpu, var.cpu);
  dut->row_sum_squared_deviation(x.dut, mean_same.dut, var.dut);
  expect_close(var, "row_sum_squared_deviation");
  Pair var_same = upload({rows}, held(var.cpu));
  Pair gamma = make({cols}, 17, 0.5, 1.5), beta = make({cols}, 18);
  Pair xhat = empty({rows, cols}), rstd = empty({rows}), y = empty({rows, cols});
  cpu.layernorm_apply(x.cpu, mean_same.cpu, var_same.cpu, 1e-5, gamma.cpu, beta.cpu, xhat.cpu,
                      rstd.cpu, y.cpu);
  dut->layernorm_apply(x.dut, mean_same.dut, var_same.dut, 1e-5, gamma.dut, beta.dut, xhat.dut,
                       rstd.dut, y.dut);
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
  dut->layernorm_backward_sums(dy.dut, gamma.dut, xhat_held.dut, sums.dut);
  expect_close(sums, "layernorm_backward_sums");
  Pair sums_same = upload({rows, 2}, rounded(sums.cpu));
  Pair dx = empty({rows, cols});
  cpu.layernorm_backward_input(dy.cpu, gamma.cpu, xhat_held.cpu, rstd_held.cpu, sums_same.cpu, cols,
                               dx.cpu);
  dut->layernorm_backward_input(dy.dut, gamma.dut, xhat_held.dut, rstd_held.dut, sums_same.dut,
                                cols, dx.dut);
  expect_close(dx, "layernorm_backward_input");
  Pair dgamma = empty({cols}), dbeta = empty({cols});
  cpu.layernorm_backward_params(dy.cpu, xhat_held.cpu, dgamma.cpu, dbeta.cpu);
  dut->layernorm_backward_params(dy.dut, xhat_held.dut, dgamma.dut, dbeta.dut);
  expect_close(dgamma, "layernorm_backward_params dgamma");
  expect_close(dbeta, "layernorm_backward_params dbeta");
}

TEST_P(DeviceConformance, VocabularyShardLookupAndCrossEntropy) {
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
  dut->gather_rows(table.dut, ids, out.dut);
  EXPECT_EQ(read(cpu, out.cpu), read(*dut, out.dut));  // a copy: exact
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
  dut->scatter_add_rows(grad.dut, ids, grad_table.dut);
  EXPECT_EQ(read(cpu, grad_table.cpu), read(*dut, grad_table.dut));

  Pair logits = make({rows, vocab}, 19, -4.0, 4.0);
  Pair max = empty({rows});
  cpu.row_max(logits.cpu, max.cpu);
  dut->row_max(logits.dut, max.dut);
  EXPECT_EQ(read(cpu, max.cpu), read(*dut, max.dut));  // a maximum: exact
  Pair sums = empty({rows, 2});
  cpu.cross_entropy_sums(logits.cpu, max.cpu, targets, sums.cpu);
  dut->cross_entropy_sums(logits.dut, max.dut, targets, sums.dut);
  expect_close(sums, "cross_entropy_sums");
  // backward from the CPU's sums, so both start from the same values
  const auto cpu_sums = read(cpu, sums.cpu);
  std::vector<double> held(cpu_sums.size());
  for (std::size_t i = 0; i < held.size(); ++i) held[i] = representable(cpu_sums[i]);
  Pair same = upload({rows, 2}, held);
  Pair dlogits = empty({rows, vocab});
  cpu.cross_entropy_backward(logits.cpu, max.cpu, same.cpu, targets, 0.25, dlogits.cpu);
  dut->cross_entropy_backward(logits.dut, max.dut, same.dut, targets, 0.25, dlogits.dut);
  expect_close(dlogits, "cross_entropy_backward");
}

TEST_P(DeviceConformance, OptimizerOpsAndThePaddingMask) {
  // the vocabulary's padded columns: exact on every dtype
  Pair logits = make({37, 70}, 40);
  const double inf = std::numeric_limits<double>::infinity();
  cpu.fill_columns_from(logits.cpu, 61, -inf);
  dut->fill_columns_from(logits.dut, 61, -inf);
  EXPECT_EQ(read(cpu, logits.cpu), read(*dut, logits.dut));
  Pair g = make({4099, 37}, 41);  // more elements than one block's pass
  const double want = cpu.sum_of_squares(g.cpu), got = dut->sum_of_squares(g.dut);
  EXPECT_NEAR(got, want, 1e-12 * want);  // both in f64 from the same values
  EXPECT_EQ(got, dut->sum_of_squares(g.dut)) << "the same tensor, the same bits";
  if (dtype() == DType::bf16) GTEST_SKIP() << "AdamW updates f64 or f32 (master) weights";
  Pair p = make({37, 70}, 42), m = make({37, 70}, 43, -0.1, 0.1), v = make({37, 70}, 44, 0, 0.01);
  const AdamWStep step{.learning_rate = 0.01,
                       .beta1 = 0.9,
                       .beta2 = 0.95,
                       .eps = 1e-8,
                       .weight_decay = 0.1,
                       .step = 3};
  Pair grad = make({37, 70}, 45);
  cpu.adamw_update(p.cpu, grad.cpu, m.cpu, v.cpu, step);
  dut->adamw_update(p.dut, grad.dut, m.dut, v.dut, step);
  expect_close(p, "adamw_update: p");
  expect_close(m, "adamw_update: m");
  expect_close(v, "adamw_update: v");
}

TEST_P(DeviceConformance, RefusesMixedOperandsAndMisfits) {
  Pair a = make({4, 4}, 20);
  EXPECT_THROW(dut->add_inplace(a.dut, a.cpu), InternalError);
  Pair b = make({4, 5}, 21), c = empty({4, 4});
  EXPECT_THROW(dut->matmul(a.dut, Transpose::no, b.dut, Transpose::no, c.dut, 1.0, 0.0),
               InternalError);
  EXPECT_THROW(dut->causal_softmax_forward(b.dut, 1.0, b.dut), InternalError);
}

}  // namespace
}  // namespace tplab
