/// @file
/// SoftmaxOps on the GPU: the causal softmax, one warp per row, beside its launchers.
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

/// probs = softmax(scale * scores) of each row of [batch * s, s], query i = r mod s seeing
/// keys 0..i; the rest of the row is 0. One pass keeps a running maximum and the sum of
/// exponentials rescaled to it (online softmax), a second writes the probabilities.
template <typename T>
__global__ void causal_softmax_forward_kernel(const T* scores, T* probs, std::int64_t rows,
                                              std::int64_t s, Acc<T> scale) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const std::int64_t visible = r % s + 1;
  const T* in = scores + r * s;
  T* out = probs + r * s;
  OnlineSoftmax<A> run;
#pragma unroll 4
  for (std::int64_t c = lane(); c < visible; c += kWarpSize) run.add(scale * widen(in[c]), ExpOf{});
  const A row_max = warp_max(run.max);
  const A inverse = A(1) / warp_sum(run.sum_at(row_max, ExpOf{}));
#pragma unroll 4
  for (std::int64_t c = lane(); c < s; c += kWarpSize) {
    out[c] = narrow<T>(c < visible ? exp_of(scale * widen(in[c]) - row_max) * inverse : A(0));
  }
}

/// dscores = scale * probs * (dprobs - sum_c(dprobs * probs)) per row of [batch * s, s], query
/// i = r mod s. Only the visible keys 0..i are read: the forward wrote probs 0 at the masked
/// ones, so their terms and their gradients are 0, and they are written as 0 without being
/// read. (The CPU's version reads the whole row; it differs only where dprobs holds a NaN or
/// Inf at a masked key, which the GPU, like the mathematics, ignores.)
template <typename T>
__global__ void causal_softmax_backward_kernel(const T* probs, const T* dprobs, T* dscores,
                                               std::int64_t rows, std::int64_t s, Acc<T> scale) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const std::int64_t visible = r % s + 1;
  const std::int64_t base = r * s;
  A dot = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < visible; c += kWarpSize) {
    dot += widen(probs[base + c]) * widen(dprobs[base + c]);
  }
  dot = warp_sum(dot);
#pragma unroll 4
  for (std::int64_t c = lane(); c < s; c += kWarpSize) {
    dscores[base + c] = narrow<T>(
        c < visible ? scale * widen(probs[base + c]) * (widen(dprobs[base + c]) - dot) : A(0));
  }
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaSoftmax final : public SoftmaxOps {
 public:
  explicit CudaSoftmax(SharedState state) : state_(std::move(state)) {}

  void causal_softmax_forward(const Tensor& scores, double scale, Tensor& probs) override {
    require_causal_scores("causal_softmax_forward", scores, probs);
    const Launch l = row_launch(scores.rows());
    if (l.blocks == 0) return;
    dispatch(scores.dtype(), [&]<typename T>() {
      causal_softmax_forward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(scores), typed<T>(probs), scores.rows(), scores.dim(1),
          static_cast<Acc<T>>(scale));
    });
    state_->after_launch("causal_softmax_forward_kernel");
  }

  void causal_softmax_backward(const Tensor& probs, const Tensor& dprobs, double scale,
                               Tensor& dscores) override {
    require_causal_scores("causal_softmax_backward", probs, dprobs);
    require_same("causal_softmax_backward", probs, dscores);
    const Launch l = row_launch(probs.rows());
    if (l.blocks == 0) return;
    dispatch(probs.dtype(), [&]<typename T>() {
      causal_softmax_backward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(probs), typed<T>(dprobs), typed<T>(dscores), probs.rows(), probs.dim(1),
          static_cast<Acc<T>>(scale));
    });
    state_->after_launch("causal_softmax_backward_kernel");
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<SoftmaxOps> make_softmax_ops(SharedState state) {
  return std::make_unique<CudaSoftmax>(std::move(state));
}

}  // namespace tplab::cuda
