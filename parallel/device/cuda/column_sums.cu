/// @file
/// The column sums of a matrix (or of the element-wise product of two) in two passes: partial
/// sums over chunks of rows, then the sum of the chunks. Shared by ElementwiseOps::column_sum and
/// LayerNormOps::layernorm_backward_params (device/ops/elementwise.cu, layernorm.cu).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/column_sums.cuh"
#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_state.cuh"
#include "device/cuda/kernel_common.cuh"
#include "device/cuda/launch_helpers.cuh"
#include "device/cuda/launch_plan.hpp"

namespace tplab::cuda {

// ---- kernels ----------------------------------------------------------------------------------

/// First pass: partial[chunk, c] = sum over the chunk's rows of x[r, c] (times y[r, c] when y
/// is given). Block (kColumnTile, kRowsPerBlock): lanes take columns, warps take rows.
template <typename T>
__global__ void column_partial_kernel(const T* x, const T* y, Acc<T>* partial, std::int64_t rows,
                                      std::int64_t cols, std::int64_t rows_per_chunk) {
  using A = Acc<T>;
  __shared__ A tile[kRowsPerBlock][kColumnTile + 1];
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.y) * rows_per_chunk;
  const std::int64_t last = min(first + rows_per_chunk, rows);
  A sum = 0;
  if (c < cols) {
#pragma unroll 4
    for (std::int64_t r = first + threadIdx.y; r < last; r += kRowsPerBlock) {
      const A v = widen(x[r * cols + c]);
      sum += y == nullptr ? v : v * widen(y[r * cols + c]);
    }
  }
  tile[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    A total = 0;
    for (int w = 0; w < kRowsPerBlock; ++w) total += tile[w][threadIdx.x];
    partial[static_cast<std::int64_t>(blockIdx.y) * cols + c] = total;
  }
}

/// Second pass: out[c] = sum_k partial[k, c] (+ beta * out[c] when beta != 0; out is not read
/// otherwise, so it may hold anything).
template <typename T>
__global__ void column_finish_kernel(const Acc<T>* partial, T* out, std::int64_t chunks,
                                     std::int64_t cols, Acc<T> beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; c < cols;
       c += stride) {
    Acc<T> total = 0;
    for (std::int64_t k = 0; k < chunks; ++k) total += partial[k * cols + c];
    if (beta != Acc<T>(0)) total += beta * widen(out[c]);
    out[c] = narrow<T>(total);
  }
}

// ---- launcher ---------------------------------------------------------------------------------

void column_sums(const CudaDevice::State& state, const Tensor& x, const Tensor* y, Tensor& out,
                 double beta) {
  const std::int64_t rows = x.rows(), cols = x.cols();
  if (cols == 0) return;
  const ColumnSumPlan plan =
      column_sum_plan(rows, cols, state.properties.multiProcessorCount);
  dispatch(x.dtype(), [&]<typename T>() {
    using A = Acc<T>;
    void* raw = nullptr;
    const std::size_t bytes = static_cast<std::size_t>(plan.row_chunks * cols) * sizeof(A);
    check_cuda(cudaMallocAsync(&raw, bytes, state.stream), "cudaMallocAsync");
    A* partial = static_cast<A*>(raw);
    const dim3 grid(static_cast<unsigned>(plan.column_tiles),
                    static_cast<unsigned>(plan.row_chunks));
    const dim3 block(kColumnTile, kRowsPerBlock);
    const Launch l = elementwise_launch(cols, state.properties.multiProcessorCount);
    try {
      column_partial_kernel<T>
          <<<grid, block, 0, state.stream>>>(typed<T>(x), y == nullptr ? nullptr : typed<T>(*y),
                                             partial, rows, cols, plan.rows_per_chunk);
      state.after_launch("column_partial_kernel");
      column_finish_kernel<T><<<grid_of(l), l.threads, 0, state.stream>>>(
          partial, typed<T>(out), plan.row_chunks, cols, static_cast<A>(beta));
      state.after_launch("column_finish_kernel");
    } catch (...) {
      cudaFreeAsync(raw, state.stream);
      throw;
    }
    cudaFreeAsync(raw, state.stream);
  });
}

}  // namespace tplab::cuda
