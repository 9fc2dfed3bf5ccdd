/// @file
/// HeadsOps on the GPU: one kernel moves heads between token-major and head-major rows, both ways.
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

/// split: out [b*n, s, d] (head-major) from x [b*s, n*d] (token-major); merge (`merge`): the
/// same map backwards, x [b*n, s, d] -> out [b*s, n*d]. One warp per token-major row bi*s + si:
/// its head hi, columns hi*d..hi*d+d-1, is the head-major row (bi*n + hi)*s + si
/// (TokenRowHeads). Values pass through unchanged.
template <typename T>
__global__ void heads_kernel(const T* x, T* out, std::int64_t token_rows, std::int64_t heads,
                             std::int64_t s, std::int64_t d, bool merge) {
  const std::int64_t r = warp_row();
  if (r >= token_rows) return;
  const TokenRowHeads place(r, heads, s, d);
  for (std::int64_t hi = 0; hi < heads; ++hi) {
    const std::int64_t token = (r * heads + hi) * d, head = place.head_start(hi);
    const T* from = x + (merge ? head : token);
    T* to = out + (merge ? token : head);
    for_each_in_row(
        d, [&](std::int64_t c) { return from[c]; }, [&](std::int64_t c, T v) { to[c] = v; });
  }
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaHeads final : public HeadsOps {
 public:
  explicit CudaHeads(SharedState state) : state_(std::move(state)) {}

  void split_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override {
    const HeadLayout h = require_split_heads(x, batch, heads, out);
    const Launch l = row_launch(x.rows());  // x is token-major
    if (l.blocks == 0 || x.numel() == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      heads_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), typed<T>(out), x.rows(), h.heads, h.sequence, h.head_dim, false);
    });
    state_->after_launch("heads_kernel (split)");
  }

  void merge_heads(const Tensor& x, std::int64_t batch, std::int64_t heads, Tensor& out) override {
    const HeadLayout h = require_merge_heads(x, batch, heads, out);
    const Launch l = row_launch(out.rows());  // out is token-major
    if (l.blocks == 0 || x.numel() == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      heads_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), typed<T>(out), out.rows(), h.heads, h.sequence, h.head_dim, true);
    });
    state_->after_launch("heads_kernel (merge)");
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<HeadsOps> make_heads_ops(SharedState state) {
  return std::make_unique<CudaHeads>(std::move(state));
}

}  // namespace tplab::cuda
