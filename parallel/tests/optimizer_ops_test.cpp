// The optimizer's device operations on the CPU: AdamW's update against the formula worked by
// hand, the moments kept per element, the decay only where asked, an exact sum of squares, and
// the padded columns of a vocabulary shard masked; bf16 parameters trained through f32 masters.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "optim/sharded_optimizer.hpp"

namespace tplab {
namespace {

std::vector<double> host_of(Device& device, const Tensor& t) {
  std::vector<double> out(static_cast<std::size_t>(t.numel()));
  device.download(t, out);
  return out;
}

Tensor tensor_of(Device& device, const std::vector<double>& values, DType dtype) {
  Tensor t = device.empty({static_cast<std::int64_t>(values.size())}, dtype);
  device.upload(values, t);
  return t;
}

/// Two AdamW steps on three elements, each worked out in plain double arithmetic.
TEST(OptimizerOps, AdamWMatchesTheFormulaStepByStep) {
  CpuDevice device;
  for (DType dtype : {DType::f64, DType::f32}) {
    const std::vector<double> p0 = {1.0, -2.0, 0.5}, g1 = {0.1, -0.3, 0.0}, g2 = {0.2, 0.1, -1e-3};
    Tensor p = tensor_of(device, p0, dtype);
    Tensor m = device.zeros({3}, dtype), v = device.zeros({3}, dtype);
    AdamWStep s{.learning_rate = 0.01,
                .beta1 = 0.9,
                .beta2 = 0.95,
                .eps = 1e-8,
                .weight_decay = 0.1,
                .step = 1};
    std::vector<double> pe = p0, me(3, 0.0), ve(3, 0.0);
    for (const auto& g : {g1, g2}) {
      device.adamw_update(p, tensor_of(device, g, dtype), m, v, s);
      for (std::size_t i = 0; i < 3; ++i) {
        me[i] = 0.9 * me[i] + 0.1 * g[i];
        ve[i] = 0.95 * ve[i] + 0.05 * g[i] * g[i];
        const double mhat = me[i] / (1 - std::pow(0.9, s.step));
        const double vhat = ve[i] / (1 - std::pow(0.95, s.step));
        pe[i] = pe[i] * (1 - 0.01 * 0.1) - 0.01 * mhat / (std::sqrt(vhat) + 1e-8);
      }
      ++s.step;
    }
    const double tol = dtype == DType::f64 ? 1e-15 : 1e-6;
    const std::vector<double> got = host_of(device, p), got_m = host_of(device, m),
                              got_v = host_of(device, v);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_NEAR(got[i], pe[i], tol) << dtype_name(dtype) << " element " << i;
      EXPECT_NEAR(got_m[i], me[i], tol) << dtype_name(dtype) << " element " << i;
      EXPECT_NEAR(got_v[i], ve[i], tol) << dtype_name(dtype) << " element " << i;
    }
  }
}

TEST(OptimizerOps, ZeroGradientAndZeroParameterStayZero) {
  // a padded id's parameters: no gradient ever reaches them, so AdamW must not move them
  CpuDevice device;
  Tensor p = device.zeros({4}, DType::f64), g = device.zeros({4}, DType::f64);
  Tensor m = device.zeros({4}, DType::f64), v = device.zeros({4}, DType::f64);
  for (std::int64_t t = 1; t <= 3; ++t) {
    device.adamw_update(p, g, m, v,
                        {.learning_rate = 0.1,
                         .beta1 = 0.9,
                         .beta2 = 0.95,
                         .eps = 1e-8,
                         .weight_decay = 0.1,
                         .step = t});
  }
  EXPECT_EQ(host_of(device, p), std::vector<double>(4, 0.0));
}

TEST(OptimizerOps, SumOfSquaresIsExactOnIntegers) {
  CpuDevice device;
  for (DType dtype : {DType::f64, DType::f32}) {
    EXPECT_EQ(device.sum_of_squares(tensor_of(device, {1, -2, 3, 4}, dtype)), 30.0);
    EXPECT_EQ(device.sum_of_squares(device.zeros({0}, dtype)), 0.0);
  }
}

TEST(OptimizerOps, FillColumnsFromMasksTheLastColumns) {
  CpuDevice device;
  Tensor x = device.empty({2, 3}, DType::f64);
  device.upload(std::vector<double>{1, 2, 3, 4, 5, 6}, x);
  const double inf = std::numeric_limits<double>::infinity();
  device.fill_columns_from(x, 1, -inf);
  EXPECT_EQ(host_of(device, x), (std::vector<double>{1, -inf, -inf, 4, -inf, -inf}));
  device.fill_columns_from(x, 3, 0.0);  // no column from 3 on: nothing changes
  EXPECT_EQ(host_of(device, x)[0], 1.0);
}

TEST(ShardedOptimizer, MatricesDecayAndVectorsDoNot) {
  EXPECT_TRUE(decays({4, 8}));  // a weight, or its shard
  EXPECT_FALSE(decays({8}));    // a bias, gamma or beta, or its shard
  CpuDevice device;
  TensorMap parameters;
  parameters.emplace("w", device.zeros({1, 2}, DType::f64));
  parameters.emplace("b", device.zeros({2}, DType::f64));
  device.fill(parameters.at("w"), 1.0);
  device.fill(parameters.at("b"), 1.0);
  TensorMap gradients;
  gradients.emplace("d_w", device.zeros({1, 2}, DType::f64));
  gradients.emplace("d_b", device.zeros({2}, DType::f64));
  OptimizerConfig config;
  config.kind = OptimizerKind::adamw;
  config.learning_rate = 0.5;
  config.weight_decay = 0.2;
  ShardedOptimizer optimizer(device, parameters, config);
  EXPECT_EQ(optimizer.state().size(), 4u);  // m and v of each
  optimizer.step(parameters, gradients);    // zero gradients: the decay alone moves p
  EXPECT_EQ(host_of(device, parameters.at("w")), (std::vector<double>{0.9, 0.9}));
  EXPECT_EQ(host_of(device, parameters.at("b")), (std::vector<double>{1.0, 1.0}));
}

/// An update below half of bf16's spacing at 1 (2^-8) is rounded away every time a bf16 weight
/// takes it directly; the f32 master accumulates it, and the bf16 weight follows the master.
TEST(ShardedOptimizer, Bf16ParametersStepThroughF32Masters) {
  CpuDevice device;
  for (OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adamw}) {
    TensorMap parameters;
    parameters.emplace("b", tensor_of(device, {1.0, -1.0}, DType::bf16));
    OptimizerConfig config;
    config.kind = kind;
    config.learning_rate = 1e-4;  // SGD's step 1e-4 x g = 1e-4; AdamW's about lr = 1e-4
    ShardedOptimizer optimizer(device, parameters, config);
    ASSERT_EQ(optimizer.masters().size(), 1u);
    EXPECT_EQ(optimizer.masters().at("b").dtype(), DType::f32);
    for (const auto& [name, state] : optimizer.state()) {
      EXPECT_EQ(state.dtype(), DType::f32) << name << ": the moments of a bf16 weight are f32";
    }
    TensorMap gradients;
    gradients.emplace("d_b", tensor_of(device, {1.0, -1.0}, DType::f32));
    // a bf16 gradient is not what the masters take: the trainer widens it first
    TensorMap narrow;
    narrow.emplace("d_b", tensor_of(device, {1.0, -1.0}, DType::bf16));
    EXPECT_THROW(optimizer.step(parameters, narrow), InternalError);
    for (int step = 0; step < 60; ++step) optimizer.step(parameters, gradients);
    // 60 steps of 1e-4: the master near 1 - 0.006, the weight at the bf16 nearest to it
    const auto master = host_of(device, optimizer.masters().at("b"));
    EXPECT_NEAR(master[0], 1.0 - 0.006, 1e-4) << optimizer_name(kind);
    EXPECT_NEAR(master[1], -1.0 + 0.006, 1e-4) << optimizer_name(kind);
    EXPECT_EQ(host_of(device, parameters.at("b")),
              (std::vector<double>{0.9921875, -0.9921875}))  // 1 - 2^-7, the bf16 nearest
        << optimizer_name(kind);
  }
  // The same steps on the bf16 weight directly (no master) leave it where it started.
  Tensor p = tensor_of(device, {1.0}, DType::bf16);
  Tensor step = tensor_of(device, {-1e-4}, DType::bf16);
  for (int i = 0; i < 60; ++i) device.add_inplace(p, step);
  EXPECT_EQ(host_of(device, p), (std::vector<double>{1.0}));
}

}  // namespace
}  // namespace tplab
