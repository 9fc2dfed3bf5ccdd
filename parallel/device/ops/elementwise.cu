/// @file
/// ElementwiseOps on the GPU: the element-wise kernels (a grid-stride loop) and the bias kernels
/// (one warp per row), each beside its launcher; column_sum is column_sums.cu's two passes.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/column_sums.cuh"
#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_state.cuh"
#include "device/cuda/kernel_common.cuh"
#include "device/cuda/launch_helpers.cuh"
#include "device/cuda/launch_plan.hpp"
#include "device/ops/cuda_ops.hpp"

namespace tplab::cuda {

// ---- kernels --------------------------------------------------------------------------------

/// y[i] += x[i].
template <typename T>
__global__ void add_kernel(T* y, const T* x, std::int64_t n) {
  using A = Acc<T>;
  for_each_element(
      n,
      [&](std::int64_t i) {
        return Pair<A>{widen(y[i]), widen(x[i])};
      },
      [&](std::int64_t i, Pair<A> v) { y[i] = narrow<T>(v.first + v.second); });
}

/// x[i] *= alpha.
template <typename T>
__global__ void scale_kernel(T* x, std::int64_t n, Acc<T> alpha) {
  for_each_element(
      n, [&](std::int64_t i) { return widen(x[i]); },
      [&](std::int64_t i, Acc<T> v) { x[i] = narrow<T>(v * alpha); });
}

/// y[r, c] += bias[c] over a row-major [rows, cols]; one warp per row.
template <typename T>
__global__ void add_bias_kernel(T* y, const T* bias, std::int64_t rows, std::int64_t cols) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;  // the whole warp leaves together
  T* row = y + r * cols;
  for_each_in_row(
      cols,
      [&](std::int64_t c) {
        return Pair<A>{widen(row[c]), widen(bias[c])};
      },
      [&](std::int64_t c, Pair<A> v) { row[c] = narrow<T>(v.first + v.second); });
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaElementwise final : public ElementwiseOps {
 public:
  explicit CudaElementwise(SharedState state) : state_(std::move(state)) {}

  void add_inplace(Tensor& y, const Tensor& x) override {
    require_same("add_inplace", y, x);
    const Launch l =
        elementwise_launch(y.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(y.dtype(), [&]<typename T>() {
      add_kernel<T>
          <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(y), typed<T>(x), y.numel());
    });
    state_->after_launch("add_kernel");
  }

  void scale(Tensor& x, double alpha) override {
    require_on_device("scale", x);
    const Launch l =
        elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      scale_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), x.numel(), static_cast<Acc<T>>(alpha));
    });
    state_->after_launch("scale_kernel");
  }

  void add_bias(Tensor& y, const Tensor& bias) override {
    require_per_column("add_bias", y, bias);
    const Launch l = row_launch(y.rows());
    if (l.blocks == 0 || y.cols() == 0) return;
    dispatch(y.dtype(), [&]<typename T>() {
      add_bias_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(y), typed<T>(bias), y.rows(), y.cols());
    });
    state_->after_launch("add_bias_kernel");
  }

  void column_sum(const Tensor& x, Tensor& out, double beta) override {
    require_per_column("column_sum", x, out);
    column_sums(*state_, x, nullptr, out, beta);
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<ElementwiseOps> make_elementwise_ops(SharedState state) {
  return std::make_unique<CudaElementwise>(std::move(state));
}

}  // namespace tplab::cuda
