// Google Benchmark suite of CpuDevice's operations at the block's sizes (b=4 s=256 h=1024
// heads=16: m = 1024 tokens, head size 64, 64 attention matrices of 256 x 256), one thread, in
// f32 and f64, and the block's products in bf16 by both of the CPU's paths (oneDNN's bf16
// kernels, where the CPU has AVX512-BF16 or AMX, and the emulation). Matmuls report FLOP/s, the
// memory-bound operations bytes/s.
//
//   build/bin/device_ops_bench --benchmark_out=device.json
#include <benchmark/benchmark.h>

#include <random>

#include "device/cpu_device.hpp"
#include "device/ops/cpu_ops.hpp"

namespace tplab::gbench {
namespace {

constexpr std::int64_t kTokens = 1024, kHidden = 1024, kFfn = 4096;
constexpr std::int64_t kAttentionBatch = 64, kSequence = 256, kHeadSize = 64;

template <typename T>
constexpr DType dtype_of() {
  return std::is_same_v<T, double> ? DType::f64 : DType::f32;
}

template <typename T>
Tensor random_tensor(Device& device, const Extents& extents, unsigned seed,
                     DType dtype = dtype_of<T>()) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> values(static_cast<std::size_t>(element_count(extents)));
  for (double& v : values) v = dist(gen);
  Tensor t = device.empty(extents, dtype);
  device.upload(values, t);
  return t;
}

/// Bytes read and written per iteration, reported as a rate.
void set_bytes(benchmark::State& state, double bytes) {
  state.counters["bytes/s"] = benchmark::Counter(
      bytes, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1024);
}

// ---- matmul: C[m, n] = op(A) op(B) with op(A) [m, k] ----------------------------------------

template <typename T>
void matmul(benchmark::State& state) {
  const std::int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const Transpose ta = state.range(3) ? Transpose::yes : Transpose::no;
  const Transpose tb = state.range(4) ? Transpose::yes : Transpose::no;
  CpuDevice device;
  const Tensor a = random_tensor<T>(device, ta == Transpose::no ? Extents{m, k} : Extents{k, m}, 1);
  const Tensor b = random_tensor<T>(device, tb == Transpose::no ? Extents{k, n} : Extents{n, k}, 2);
  Tensor c = device.empty({m, n}, dtype_of<T>());
  for (auto _ : state) {
    device.matmul(a, ta, b, tb, c, 1.0, 0.0);
    benchmark::ClobberMemory();
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * k * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

/// The same product in bf16, its operands and C stored in bf16, by the path of state.range(5):
/// 0 the emulation (operands widened to f32, the f32 GEMM, C rounded), 1 oneDNN's bf16 kernels
/// (skipped, saying so, where the CPU has no bf16 instructions).
void matmul_bf16(benchmark::State& state) {
  const std::int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const Transpose ta = state.range(3) ? Transpose::yes : Transpose::no;
  const Transpose tb = state.range(4) ? Transpose::yes : Transpose::no;
  const auto path = state.range(5) ? cpu::Bf16GemmPath::onednn : cpu::Bf16GemmPath::emulated;
  if (path == cpu::Bf16GemmPath::onednn && !cpu::onednn_bf16_available()) {
    state.SkipWithError("oneDNN's bf16 kernels need AVX512-BF16 or AMX (and oneDNN)");
    return;
  }
  DeviceFamilies families = cpu::make_families();
  families.gemm = cpu::make_gemm_ops(path);
  CpuDevice device(std::move(families));
  const DType bf16 = DType::bf16;
  const Tensor a =
      random_tensor<float>(device, ta == Transpose::no ? Extents{m, k} : Extents{k, m}, 1, bf16);
  const Tensor b =
      random_tensor<float>(device, tb == Transpose::no ? Extents{k, n} : Extents{n, k}, 2, bf16);
  Tensor c = device.empty({m, n}, bf16);
  for (auto _ : state) {
    device.matmul(a, ta, b, tb, c, 1.0, 0.0);  // [m, k] x [k, n] -> [m, n]
    benchmark::ClobberMemory();
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * k * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

/// The block's GEMMs: Q/K/V/O forward, fc1 and fc2 forward, and the two backward forms of fc1
/// (dX = dY W^T, dW = X^T dY).
void block_matmuls(benchmark::internal::Benchmark* b) {
  b->ArgNames({"m", "k", "n", "ta", "tb"});
  b->Args({kTokens, kHidden, kHidden, 0, 0});
  b->Args({kTokens, kHidden, kFfn, 0, 0});
  b->Args({kTokens, kFfn, kHidden, 0, 0});
  b->Args({kTokens, kFfn, kHidden, 0, 1});
  b->Args({kHidden, kTokens, kFfn, 1, 0});
  b->Unit(benchmark::kMillisecond);
}

/// Attention's batched products: scores = Q K^T and context = P V, per (sequence, head).
template <typename T>
void attention_matmuls(benchmark::State& state) {
  const bool scores = state.range(0) == 0;
  CpuDevice device;
  const std::int64_t inner = scores ? kHeadSize : kSequence;
  const std::int64_t cols = scores ? kSequence : kHeadSize;
  const Tensor a = random_tensor<T>(device, {kAttentionBatch, kSequence, inner}, 1);
  const Tensor b = random_tensor<T>(device, {kAttentionBatch, kSequence, kHeadSize}, 2);  // K or V
  Tensor c = device.empty({kAttentionBatch, kSequence, cols}, dtype_of<T>());
  for (auto _ : state) {
    device.batched_matmul(a, Transpose::no, b, scores ? Transpose::yes : Transpose::no, c, 1.0,
                          0.0);
    benchmark::ClobberMemory();
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(kAttentionBatch * kSequence * inner * cols),
                         benchmark::Counter::kIsIterationInvariantRate);
}

// ---- LayerNorm, in the pieces a distributed LayerNorm calls ---------------------------------

template <typename T>
struct LayerNormData {
  CpuDevice device;
  Tensor x = random_tensor<T>(device, {kTokens, kHidden}, 1);
  Tensor dy = random_tensor<T>(device, {kTokens, kHidden}, 2);
  Tensor gamma = random_tensor<T>(device, {kHidden}, 3);
  Tensor beta = random_tensor<T>(device, {kHidden}, 4);
  Tensor mean = device.zeros({kTokens}, dtype_of<T>());
  Tensor var = device.zeros({kTokens}, dtype_of<T>());
  Tensor rstd = device.zeros({kTokens}, dtype_of<T>());
  Tensor xhat = device.zeros({kTokens, kHidden}, dtype_of<T>());
  Tensor y = device.zeros({kTokens, kHidden}, dtype_of<T>());
  Tensor sums = device.zeros({kTokens, 2}, dtype_of<T>());
  Tensor dgamma = device.zeros({kHidden}, dtype_of<T>());
  Tensor dbeta = device.zeros({kHidden}, dtype_of<T>());
  double matrix_bytes = static_cast<double>(kTokens * kHidden * sizeof(T));
};

template <typename T>
void layernorm_statistics(benchmark::State& state) {
  LayerNormData<T> d;
  for (auto _ : state) {
    d.device.row_sum(d.x, d.mean);
    d.device.row_sum_squared_deviation(d.x, d.mean, d.var);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2 * d.matrix_bytes);
}

template <typename T>
void layernorm_apply(benchmark::State& state) {
  LayerNormData<T> d;
  for (auto _ : state) {
    d.device.layernorm_apply(d.x, d.mean, d.var, 1e-5, d.gamma, d.beta, d.xhat, d.rstd, d.y);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 3 * d.matrix_bytes);
}

template <typename T>
void layernorm_backward(benchmark::State& state) {
  LayerNormData<T> d;
  Tensor dx = d.device.zeros({kTokens, kHidden}, dtype_of<T>());
  for (auto _ : state) {
    d.device.layernorm_backward_sums(d.dy, d.gamma, d.xhat, d.sums);
    d.device.layernorm_backward_input(d.dy, d.gamma, d.xhat, d.rstd, d.sums, kHidden, dx);
    d.device.layernorm_backward_params(d.dy, d.xhat, d.dgamma, d.dbeta);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 7 * d.matrix_bytes);
}

// ---- causal softmax over [64, 256, 256] -------------------------------------------------------

template <typename T>
void causal_softmax(benchmark::State& state) {
  const bool backward = state.range(0) == 1;
  CpuDevice device;
  const Extents e{kAttentionBatch, kSequence, kSequence};
  const Tensor scores = random_tensor<T>(device, e, 1);
  Tensor probs = device.empty(e, dtype_of<T>());
  device.causal_softmax_forward(scores, 0.125, probs);
  const Tensor dprobs = random_tensor<T>(device, e, 2);
  Tensor dscores = device.empty(e, dtype_of<T>());
  for (auto _ : state) {
    if (backward) {
      device.causal_softmax_backward(probs, dprobs, 0.125, dscores);
    } else {
      device.causal_softmax_forward(scores, 0.125, probs);
    }
    benchmark::ClobberMemory();
  }
  set_bytes(state, (backward ? 3.0 : 2.0) * static_cast<double>(element_count(e) * sizeof(T)));
}

// ---- GELU (tanh form) over the MLP's hidden activations [1024, 4096] -------------------------

template <typename T>
void gelu(benchmark::State& state) {
  const bool backward = state.range(0) == 1;
  CpuDevice device;
  const Tensor x = random_tensor<T>(device, {kTokens, kFfn}, 1);
  const Tensor dy = random_tensor<T>(device, {kTokens, kFfn}, 2);
  Tensor out = device.empty({kTokens, kFfn}, dtype_of<T>());
  for (auto _ : state) {
    if (backward) {
      device.gelu_backward(x, dy, out);
    } else {
      device.gelu_forward(x, out);
    }
    benchmark::ClobberMemory();
  }
  set_bytes(state, (backward ? 3.0 : 2.0) * static_cast<double>(kTokens * kFfn * sizeof(T)));
}

void forward_backward(benchmark::internal::Benchmark* b) {
  b->ArgName("backward")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_TEMPLATE(matmul, float)->Apply(block_matmuls);
BENCHMARK_TEMPLATE(matmul, double)->Apply(block_matmuls);
BENCHMARK(matmul_bf16)->Apply([](benchmark::internal::Benchmark* b) {
  b->ArgNames({"m", "k", "n", "ta", "tb", "onednn"});
  for (std::int64_t onednn : {0, 1}) {
    b->Args({kTokens, kHidden, kHidden, 0, 0, onednn});
    b->Args({kTokens, kHidden, kFfn, 0, 0, onednn});
    b->Args({kTokens, kFfn, kHidden, 0, 1, onednn});
    b->Args({kHidden, kTokens, kFfn, 1, 0, onednn});
  }
  b->Unit(benchmark::kMillisecond);
});
BENCHMARK_TEMPLATE(attention_matmuls, float)
    ->ArgName("pv")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(attention_matmuls, double)
    ->ArgName("pv")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(layernorm_statistics, float)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(layernorm_statistics, double)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(layernorm_apply, float)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(layernorm_apply, double)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(layernorm_backward, float)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(layernorm_backward, double)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(causal_softmax, float)->Apply(forward_backward);
BENCHMARK_TEMPLATE(causal_softmax, double)->Apply(forward_backward);
BENCHMARK_TEMPLATE(gelu, float)->Apply(forward_backward);
BENCHMARK_TEMPLATE(gelu, double)->Apply(forward_backward);

}  // namespace tplab::gbench

BENCHMARK_MAIN();
