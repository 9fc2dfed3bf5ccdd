/// @file
/// GeluOps on the GPU: gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) and its
/// derivative, element-wise kernels beside their launchers.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_state.cuh"
#include "device/cuda/kernel_common.cuh"
#include "device/cuda/launch_helpers.cuh"
#include "device/cuda/launch_plan.hpp"
#include "device/ops/cuda_ops.hpp"

namespace tplab::cuda {

// ---- kernels --------------------------------------------------------------------------------

/// sqrt(2/pi) and the cubic coefficient of GELU's tanh form.
inline constexpr double kSqrt2OverPi = 0.79788456080286535588;

/// The cubic coefficient of GELU's tanh form.
inline constexpr double kGeluCubic = 0.044715;

/// y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <typename T>
__global__ void gelu_forward_kernel(const T* x, T* y, std::int64_t n) {
  using A = Acc<T>;
  const A c = static_cast<A>(kSqrt2OverPi), k = static_cast<A>(kGeluCubic);
  for_each_element(
      n, [&](std::int64_t i) { return widen(x[i]); },
      [&](std::int64_t i, A v) {
        const A t = tanh_of(c * (v + k * v * v * v));
        y[i] = narrow<T>(A(0.5) * v * (A(1) + t));
      });
}

/// dx = dy ((1 + t)/2 + x/2 (1 - t^2) sqrt(2/pi) (1 + 3 0.044715 x^2)), t as in the forward.
template <typename T>
__global__ void gelu_backward_kernel(const T* x, const T* dy, T* dx, std::int64_t n) {
  using A = Acc<T>;
  const A c = static_cast<A>(kSqrt2OverPi), k = static_cast<A>(kGeluCubic);
  for_each_element(
      n,
      [&](std::int64_t i) {
        return Pair<A>{widen(x[i]), widen(dy[i])};
      },
      [&](std::int64_t i, Pair<A> in) {
        const A v = in.first;
        const A t = tanh_of(c * (v + k * v * v * v));
        const A slope =
            A(0.5) * (A(1) + t) + A(0.5) * v * (A(1) - t * t) * c * (A(1) + A(3) * k * v * v);
        dx[i] = narrow<T>(in.second * slope);
      });
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaGelu final : public GeluOps {
 public:
  explicit CudaGelu(SharedState state) : state_(std::move(state)) {}

  void gelu_forward(const Tensor& x, Tensor& y) override {
    require_same("gelu_forward", x, y);
    const Launch l =
        elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      gelu_forward_kernel<T>
          <<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(x), typed<T>(y), x.numel());
    });
    state_->after_launch("gelu_forward_kernel");
  }

  void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) override {
    require_same("gelu_backward", x, dy);
    require_same("gelu_backward", x, dx);
    const Launch l =
        elementwise_launch(x.numel(), state_->properties.multiProcessorCount);
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      gelu_backward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), typed<T>(dy), typed<T>(dx), x.numel());
    });
    state_->after_launch("gelu_backward_kernel");
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<GeluOps> make_gelu_ops(SharedState state) {
  return std::make_unique<CudaGelu>(std::move(state));
}

}  // namespace tplab::cuda
