/// @file
/// LayerNormOps on the GPU: the row sums, the normalisation and the backward sums, one warp per
/// row, beside their launchers; the parameters' gradients are column_sums.cu's two passes.
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

/// out[r] = sum_c x[r, c].
template <typename T>
__global__ void row_sum_kernel(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;  // the whole warp leaves together
  const T* row = x + r * cols;
  Acc<T> sum = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) sum += widen(row[c]);
  sum = warp_sum(sum);
  if (lane() == 0) out[r] = narrow<T>(sum);
}

/// out[r] = sum_c (x[r, c] - mean[r])^2.
template <typename T>
__global__ void row_squared_deviation_kernel(const T* x, const T* mean, T* out, std::int64_t rows,
                                             std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = x + r * cols;
  const Acc<T> m = widen(mean[r]);
  Acc<T> sum = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    const Acc<T> dev = widen(row[c]) - m;
    sum += dev * dev;
  }
  sum = warp_sum(sum);
  if (lane() == 0) out[r] = narrow<T>(sum);
}

/// rstd[r] = 1/sqrt(var[r] + eps), xhat = (x - mean[r]) rstd, y = xhat gamma[c] + beta[c].
template <typename T>
__global__ void layernorm_apply_kernel(const T* x, const T* mean, const T* var, Acc<T> eps,
                                       const T* gamma, const T* beta, T* xhat, T* rstd, T* y,
                                       std::int64_t rows, std::int64_t cols) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const A m = widen(mean[r]);
  const A inv = rsqrt_of(widen(var[r]) + eps);  // once per row (before: once per element)
  if (lane() == 0) rstd[r] = narrow<T>(inv);
  const std::int64_t offset = r * cols;
  for_each_in_row(
      cols,
      [&](std::int64_t c) {
        return Triple<A>{widen(x[offset + c]), widen(gamma[c]), widen(beta[c])};
      },
      [&](std::int64_t c, Triple<A> v) {
        const A normed = (v.first - m) * inv;
        xhat[offset + c] = narrow<T>(normed);
        y[offset + c] = narrow<T>(normed * v.second + v.third);
      });
}

/// sums[r] = (sum_c g, sum_c g xhat) with g = dy[r, c] gamma[c]; sums is [rows, 2].
template <typename T>
__global__ void layernorm_sums_kernel(const T* dy, const T* gamma, const T* xhat, T* sums,
                                      std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  Acc<T> sum_g = 0, sum_gx = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    const Acc<T> g = widen(dy[r * cols + c]) * widen(gamma[c]);
    sum_g += g;
    sum_gx += g * widen(xhat[r * cols + c]);
  }
  sum_g = warp_sum(sum_g);
  sum_gx = warp_sum(sum_gx);
  if (lane() == 0) {
    sums[2 * r] = narrow<T>(sum_g);
    sums[2 * r + 1] = narrow<T>(sum_gx);
  }
}

/// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma, means from sums / features.
template <typename T>
__global__ void layernorm_input_kernel(const T* dy, const T* gamma, const T* xhat, const T* rstd,
                                       const T* sums, Acc<T> inv_features, T* dx, std::int64_t rows,
                                       std::int64_t cols) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const A scale = widen(rstd[r]);
  const A mean_g = widen(sums[2 * r]) * inv_features;
  const A mean_gx = widen(sums[2 * r + 1]) * inv_features;
  const std::int64_t offset = r * cols;
  for_each_in_row(
      cols,
      [&](std::int64_t c) {
        return Triple<A>{widen(dy[offset + c]), widen(xhat[offset + c]), widen(gamma[c])};
      },
      [&](std::int64_t c, Triple<A> v) {
        const A g = v.first * v.third;
        dx[offset + c] = narrow<T>(scale * (g - mean_g - v.second * mean_gx));
      });
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaLayerNorm final : public LayerNormOps {
 public:
  explicit CudaLayerNorm(SharedState state) : state_(std::move(state)) {}

  void row_sum(const Tensor& x, Tensor& out) override {
    require_per_row("row_sum", x, out);
    const Launch l = row_launch(x.rows());
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      row_sum_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), typed<T>(out), x.rows(), x.cols());
    });
    state_->after_launch("row_sum_kernel");
  }

  void row_sum_squared_deviation(const Tensor& x, const Tensor& mean, Tensor& out) override {
    require_per_row("row_sum_squared_deviation", x, mean);
    require_per_row("row_sum_squared_deviation", x, out);
    const Launch l = row_launch(x.rows());
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      row_squared_deviation_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), typed<T>(mean), typed<T>(out), x.rows(), x.cols());
    });
    state_->after_launch("row_squared_deviation_kernel");
  }

  void layernorm_apply(const Tensor& x, const Tensor& mean, const Tensor& var, double eps,
                       const Tensor& gamma, const Tensor& beta, Tensor& xhat, Tensor& rstd,
                       Tensor& y) override {
    require_same("layernorm_apply", x, xhat);
    require_same("layernorm_apply", x, y);
    require_per_row("layernorm_apply", x, mean);
    require_per_row("layernorm_apply", x, var);
    require_per_row("layernorm_apply", x, rstd);
    require_per_column("layernorm_apply", x, gamma);
    require_per_column("layernorm_apply", x, beta);
    const Launch l = row_launch(x.rows());
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      layernorm_apply_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), typed<T>(mean), typed<T>(var), static_cast<Acc<T>>(eps),
          typed<T>(gamma), typed<T>(beta), typed<T>(xhat), typed<T>(rstd), typed<T>(y), x.rows(),
          x.cols());
    });
    state_->after_launch("layernorm_apply_kernel");
  }

  void layernorm_backward_sums(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                               Tensor& sums) override {
    require_same("layernorm_backward_sums", dy, xhat);
    require_per_column("layernorm_backward_sums", dy, gamma);
    require_on_device("layernorm_backward_sums", sums);
    if (sums.extents() != Extents{dy.rows(), 2} || sums.dtype() != dy.dtype()) {
      throw InternalError("CudaDevice::layernorm_backward_sums: sums must be [rows, 2] of " +
                          std::string(dtype_name(dy.dtype())) + "; got " +
                          to_string(sums.extents()));
    }
    const Launch l = row_launch(dy.rows());
    if (l.blocks == 0) return;
    dispatch(dy.dtype(), [&]<typename T>() {
      layernorm_sums_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(dy), typed<T>(gamma), typed<T>(xhat), typed<T>(sums), dy.rows(), dy.cols());
    });
    state_->after_launch("layernorm_sums_kernel");
  }

  void layernorm_backward_input(const Tensor& dy, const Tensor& gamma, const Tensor& xhat,
                                const Tensor& rstd, const Tensor& sums, std::int64_t features,
                                Tensor& dx) override {
    require_same("layernorm_backward_input", dy, xhat);
    require_same("layernorm_backward_input", dy, dx);
    require_per_column("layernorm_backward_input", dy, gamma);
    require_per_row("layernorm_backward_input", dy, rstd);
    require_on_device("layernorm_backward_input", sums);
    if (sums.extents() != Extents{dy.rows(), 2} || sums.dtype() != dy.dtype() || features <= 0) {
      throw InternalError(
          "CudaDevice::layernorm_backward_input: sums must be [rows, 2] and "
          "features positive; got " +
          to_string(sums.extents()) + " and " + std::to_string(features));
    }
    const Launch l = row_launch(dy.rows());
    if (l.blocks == 0) return;
    dispatch(dy.dtype(), [&]<typename T>() {
      using A = Acc<T>;
      layernorm_input_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(dy), typed<T>(gamma), typed<T>(xhat), typed<T>(rstd), typed<T>(sums),
          A(1) / static_cast<A>(features), typed<T>(dx), dy.rows(), dy.cols());
    });
    state_->after_launch("layernorm_input_kernel");
  }

  void layernorm_backward_params(const Tensor& dy, const Tensor& xhat, Tensor& dgamma,
                                 Tensor& dbeta) override {
    require_same("layernorm_backward_params", dy, xhat);
    require_per_column("layernorm_backward_params", dy, dgamma);
    require_per_column("layernorm_backward_params", dy, dbeta);
    column_sums(*state_, dy, &xhat, dgamma, 0.0);
    column_sums(*state_, dy, nullptr, dbeta, 0.0);
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<LayerNormOps> make_layernorm_ops(SharedState state) {
  return std::make_unique<CudaLayerNorm>(std::move(state));
}

}  // namespace tplab::cuda
