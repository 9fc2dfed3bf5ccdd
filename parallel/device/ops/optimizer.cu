/// @file
/// OptimizerOps on the GPU: a shard's sum of squares (one block, a fixed order, so the same
/// tensor gives the same bits on every rank) and the AdamW update (a grid-stride loop).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_state.cuh"
#include "device/cuda/kernel_common.cuh"
#include "device/cuda/launch_helpers.cuh"
#include "device/cuda/launch_plan.hpp"
#include "device/ops/cuda_ops.hpp"

namespace tplab::cuda {

// ---- kernels --------------------------------------------------------------------------------

/// *out = sum_i x[i]^2 in f64 by one block of kThreadsPerBlock threads: thread t sums elements
/// t, t + kThreadsPerBlock, ... in order, then the block halves its partial sums in a fixed
/// tree. Slower than a grid-wide reduction, and deterministic, which the norm needs.
template <typename T>
__global__ void sum_of_squares_kernel(const T* x, std::int64_t n, double* out) {
  __shared__ double partial[kThreadsPerBlock];
  double sum = 0;
  for (std::int64_t i = threadIdx.x; i < n; i += kThreadsPerBlock) {
    const double e = static_cast<double>(widen(x[i]));
    sum += e * e;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreadsPerBlock / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = partial[0];
}

/// The constants of one AdamW step in the arithmetic type A.
template <typename A>
struct AdamWConstants {
  A lr, beta1, beta2, eps, decay, correction1, correction2;
};

/// OptimizerOps::adamw_update, element by element.
template <typename T>
__global__ void adamw_kernel(T* p, const T* g, T* m, T* v, std::int64_t n,
                             AdamWConstants<Acc<T>> k) {
  using A = Acc<T>;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const A grad = widen(g[i]);
    const A first = k.beta1 * widen(m[i]) + (A(1) - k.beta1) * grad;
    const A second = k.beta2 * widen(v[i]) + (A(1) - k.beta2) * grad * grad;
    const A update = (first / k.correction1) / (sqrt(second / k.correction2) + k.eps);
    m[i] = narrow<T>(first);
    v[i] = narrow<T>(second);
    p[i] = narrow<T>(widen(p[i]) * k.decay - k.lr * update);
  }
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaOptimizer final : public OptimizerOps {
 public:
  explicit CudaOptimizer(SharedState state) : state_(std::move(state)) {}

  double sum_of_squares(const Tensor& x) override {
    require_on_device("sum_of_squares", x);
    if (x.numel() == 0) return 0;
    void* raw = nullptr;
    check_cuda(cudaMallocAsync(&raw, sizeof(double), state_->stream), "cudaMallocAsync");
    double sum = 0;
    try {
      dispatch(x.dtype(), [&]<typename T>() {
        sum_of_squares_kernel<T><<<1, kThreadsPerBlock, 0, state_->stream>>>(
            typed<T>(x), x.numel(), static_cast<double*>(raw));
      });
      state_->after_launch("sum_of_squares_kernel");
      check_cuda(cudaMemcpyAsync(&sum, raw, sizeof sum, cudaMemcpyDeviceToHost, state_->stream),
                 "cudaMemcpyAsync (sum_of_squares)");
      check_cuda(cudaStreamSynchronize(state_->stream), "cudaStreamSynchronize (sum_of_squares)");
    } catch (...) {
      cudaFreeAsync(raw, state_->stream);
      throw;
    }
    cudaFreeAsync(raw, state_->stream);
    return sum;
  }

  void adamw_update(Tensor& p, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& s) override {
    require_same("adamw_update", p, g);
    require_same("adamw_update", p, m);
    require_same("adamw_update", p, v);
    const Launch l = elementwise_launch(p.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(p.dtype(), [&]<typename T>() {
      using A = Acc<T>;
      const double t = static_cast<double>(s.step);
      const AdamWConstants<A> k{static_cast<A>(s.learning_rate),
                                static_cast<A>(s.beta1),
                                static_cast<A>(s.beta2),
                                static_cast<A>(s.eps),
                                static_cast<A>(1.0 - s.learning_rate * s.weight_decay),
                                static_cast<A>(1.0 - std::pow(s.beta1, t)),
                                static_cast<A>(1.0 - std::pow(s.beta2, t))};
      adamw_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(p), typed<T>(g), typed<T>(m), typed<T>(v), p.numel(), k);
    });
    state_->after_launch("adamw_kernel");
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<OptimizerOps> make_optimizer_ops(SharedState state) {
  return std::make_unique<CudaOptimizer>(std::move(state));
}

}  // namespace tplab::cuda
