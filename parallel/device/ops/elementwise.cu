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

/// x[g, r, c] *= mask.scale or 0, as the mask keeps global element (g, r, c); one warp per row
/// of the [groups * rows, cols] view, whose global index is worked out once per row.
template <typename T>
__global__ void dropout_kernel(T* x, DropoutMask mask, std::int64_t rows, std::int64_t cols,
                               std::int64_t all_rows) {
  using A = Acc<T>;
  const std::int64_t row = warp_row();
  if (row >= all_rows) return;  // the whole warp leaves together
  T* values = x + row * cols;
  const std::int64_t first = mask.global_index(row / rows, row % rows, 0);
  const A scale = static_cast<A>(mask.scale);
  for_each_in_row(
      cols, [&](std::int64_t c) { return widen(values[c]); },
      [&](std::int64_t c, A v) {
        values[c] = narrow<T>(v * (mask.keeps(first + c) ? scale : A(0)));  // NaN stays NaN
      });
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaElementwise final : public ElementwiseOps {
 public:
  explicit CudaElementwise(SharedState state) : state_(std::move(state)) {}

  void add_inplace(Tensor& y, const Tensor& x) override {
    require_same("add_inplace", y, x);
    const Launch l = elementwise_launch(y.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(y.dtype(), [&]<typename T>() {
      add_kernel<T>
          <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(y), typed<T>(x), y.numel());
    });
    state_->after_launch("add_kernel");
  }

  void scale(Tensor& x, double alpha) override {
    require_on_device("scale", x);
    const Launch l = elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      scale_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(x), x.numel(),
                                                                    static_cast<Acc<T>>(alpha));
    });
    state_->after_launch("scale_kernel");
  }

  void add_bias(Tensor& y, const Tensor& bias) override {
    require_per_column("add_bias", y, bias);
    const Launch l = row_launch(y.rows());
    if (l.blocks == 0 || y.cols() == 0) return;
    dispatch(y.dtype(), [&]<typename T>() {
      add_bias_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(y), typed<T>(bias),
                                                                       y.rows(), y.cols());
    });
    state_->after_launch("add_bias_kernel");
  }

  void column_sum(const Tensor& x, Tensor& out, double beta) override {
    require_per_column("column_sum", x, out);
    column_sums(*state_, x, nullptr, out, beta);
  }

  void dropout(Tensor& x, const DropoutMask& mask) override {
    require_on_device("dropout", x);
    const std::int64_t cols = x.dim(x.rank() - 1), rows = x.dim(x.rank() - 2);
    const std::int64_t all_rows = x.numel() / (cols == 0 ? 1 : cols);
    const Launch l = row_launch(all_rows);
    if (l.blocks == 0 || cols == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      dropout_kernel<T>
          <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(x), mask, rows, cols, all_rows);
    });
    state_->after_launch("dropout_kernel");
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<ElementwiseOps> make_elementwise_ops(SharedState state) {
  return std::make_unique<CudaElementwise>(std::move(state));
}

}  // namespace tplab::cuda
