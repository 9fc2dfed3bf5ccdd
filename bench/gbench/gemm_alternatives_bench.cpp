// Google Benchmark suite of the GEMM libraries this machine has, single-threaded, at the
// block's sizes (b=4 s=256 h=1024: m = 1024 tokens): Eigen (CpuDevice's fallback), oneDNN's
// dnnl_sgemm (CpuDevice's f32 path where installed) and OpenBLAS's cblas_?gemm, each called
// directly. It is how README's "Benchmarks" chose oneDNN for f32:
//
//   build/bin/gemm_alternatives_bench --benchmark_repetitions=5
//
// OpenBLAS picks its kernels from OPENBLAS_CORETYPE when that is set; the suite leaves the
// environment as it finds it.
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#ifdef TPLAB_HAVE_ONEDNN
#include <dnnl.h>
#include <omp.h>
#endif
#ifdef TPLAB_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// op(A) [m, k] x op(B) [k, n] with A, B and C row-major, filled once.
template <typename T>
struct Operands {
  std::int64_t m, k, n;
  bool ta, tb;
  Matrix<T> a, b, c;
  explicit Operands(const benchmark::State& state)
      : m(state.range(0)),
        k(state.range(1)),
        n(state.range(2)),
        ta(state.range(3) != 0),
        tb(state.range(4) != 0),
        a(Matrix<T>::Random(ta ? k : m, ta ? m : k)),
        b(Matrix<T>::Random(tb ? n : k, tb ? k : n)),
        c(Matrix<T>::Zero(m, n)) {}
  void count_flops(benchmark::State& state) const {
    state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * k * n),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  }
};

template <typename T>
void eigen(benchmark::State& state) {
  Operands<T> o(state);
  Eigen::setNbThreads(1);
  for (auto _ : state) {
    if (!o.ta && !o.tb) o.c.noalias() = o.a * o.b;
    if (!o.ta && o.tb) o.c.noalias() = o.a * o.b.transpose();
    if (o.ta && !o.tb) o.c.noalias() = o.a.transpose() * o.b;
    benchmark::ClobberMemory();
  }
  o.count_flops(state);
}

#ifdef TPLAB_HAVE_ONEDNN
void onednn_sgemm(benchmark::State& state) {
  Operands<float> o(state);
  omp_set_num_threads(1);
  for (auto _ : state) {
    dnnl_sgemm(o.ta ? 'T' : 'N', o.tb ? 'T' : 'N', o.m, o.n, o.k, 1.0f, o.a.data(), o.a.cols(),
               o.b.data(), o.b.cols(), 0.0f, o.c.data(), o.n);
    benchmark::ClobberMemory();
  }
  o.count_flops(state);
}
#endif

#ifdef TPLAB_HAVE_OPENBLAS
template <typename T>
void openblas(benchmark::State& state) {
  Operands<T> o(state);
  openblas_set_num_threads(1);
  const auto ta = o.ta ? CblasTrans : CblasNoTrans;
  const auto tb = o.tb ? CblasTrans : CblasNoTrans;
  const auto m = static_cast<blasint>(o.m), n = static_cast<blasint>(o.n);
  const auto k = static_cast<blasint>(o.k);
  const auto lda = static_cast<blasint>(o.a.cols()), ldb = static_cast<blasint>(o.b.cols());
  for (auto _ : state) {
    if constexpr (std::is_same_v<T, float>) {
      cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, o.a.data(), lda, o.b.data(), ldb, 0.0f,
                  o.c.data(), n);
    } else {
      cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, o.a.data(), lda, o.b.data(), ldb, 0.0,
                  o.c.data(), n);
    }
    benchmark::ClobberMemory();
  }
  o.count_flops(state);
}
#endif

/// Q/K/V/O, fc1, fc2, and fc1's backward forms (dX = dY W^T, dW = X^T dY).
void block_sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"m", "k", "n", "ta", "tb"});
  b->Args({1024, 1024, 1024, 0, 0});
  b->Args({1024, 1024, 4096, 0, 0});
  b->Args({1024, 4096, 1024, 0, 0});
  b->Args({1024, 4096, 1024, 0, 1});
  b->Args({1024, 1024, 4096, 1, 0});
  b->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK_TEMPLATE(eigen, float)->Apply(block_sizes);
#ifdef TPLAB_HAVE_ONEDNN
BENCHMARK(onednn_sgemm)->Apply(block_sizes);
#endif
#ifdef TPLAB_HAVE_OPENBLAS
BENCHMARK_TEMPLATE(openblas, float)->Apply(block_sizes);
#endif
BENCHMARK_TEMPLATE(eigen, double)->Apply(block_sizes);
#ifdef TPLAB_HAVE_OPENBLAS
BENCHMARK_TEMPLATE(openblas, double)->Apply(block_sizes);
#endif

BENCHMARK_MAIN();
