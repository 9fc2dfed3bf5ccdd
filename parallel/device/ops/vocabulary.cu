/// @file
/// VocabularyOps on the GPU: the embedding rows and the cross-entropy sums of one vocabulary shard
/// (GPT only), one warp per row (the scatter: one thread per column, rows in order), beside their
/// launchers. Token ids and targets are copied to the device for each call (DeviceIndices).
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

// ids and targets index this rank's shard of the vocabulary; one outside [0, shard rows) belongs
// to another rank and is skipped.

/// out[r, :] = table[ids[r], :], or 0 where ids[r] is not in this shard; one warp per row.
template <typename T>
__global__ void gather_rows_kernel(const T* table, const std::int64_t* ids, T* out,
                                   std::int64_t rows, std::int64_t table_rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const std::int64_t id = ids[r];
  const bool here = id >= 0 && id < table_rows;
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    out[r * cols + c] = here ? table[id * cols + c] : narrow<T>(Acc<T>(0));
  }
}

/// table[ids[r], c] += src[r, c] for r = 0, 1, ... in order; one thread per column, so the
/// additions into a cell happen in the host's order and the result does not depend on how the
/// threads are scheduled (no atomics).
template <typename T>
__global__ void scatter_add_rows_kernel(const T* src, const std::int64_t* ids, T* table,
                                        std::int64_t rows, std::int64_t table_rows,
                                        std::int64_t cols) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t id = ids[r];
    if (id < 0 || id >= table_rows) continue;
    T& cell = table[id * cols + c];
    cell = narrow<T>(widen(cell) + widen(src[r * cols + c]));
  }
}

/// out[r] = max_c x[r, c]; one warp per row.
template <typename T>
__global__ void row_max_kernel(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = x + r * cols;
  Acc<T> m = -Acc<T>(INFINITY);
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) m = max(m, widen(row[c]));
  m = warp_max(m);
  if (lane() == 0) out[r] = narrow<T>(m);
}

/// sums[r] = (sum_c exp(logits[r, c] - max[r]), logits[r, targets[r]] or 0 when the target is
/// not in this shard); one warp per row.
template <typename T>
__global__ void cross_entropy_sums_kernel(const T* logits, const T* max,
                                          const std::int64_t* targets, T* sums, std::int64_t rows,
                                          std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = logits + r * cols;
  const Acc<T> m = widen(max[r]);
  Acc<T> sum = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) sum += exp_of(widen(row[c]) - m);
  sum = warp_sum(sum);
  if (lane() == 0) {
    const std::int64_t t = targets[r];
    sums[2 * r] = narrow<T>(sum);
    sums[2 * r + 1] = t >= 0 && t < cols ? row[t] : narrow<T>(Acc<T>(0));
  }
}

/// dlogits[r, c] = scale (exp(logits[r, c] - max[r]) / sums[r, 0] - [c == targets[r]]); one
/// warp per row.
template <typename T>
__global__ void cross_entropy_backward_kernel(const T* logits, const T* max, const T* sums,
                                              const std::int64_t* targets, Acc<T> scale, T* dlogits,
                                              std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = logits + r * cols;
  const Acc<T> m = widen(max[r]);
  const Acc<T> total = widen(sums[2 * r]);
  const std::int64_t t = targets[r];
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    Acc<T> d = exp_of(widen(row[c]) - m) / total * scale;
    if (c == t) d -= scale;
    dlogits[r * cols + c] = narrow<T>(d);
  }
}

/// x[r, c] = value for c >= col0; one warp per row.
template <typename T>
__global__ void fill_columns_from_kernel(T* x, std::int64_t rows, std::int64_t cols,
                                         std::int64_t col0, Acc<T> value) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  for (std::int64_t c = col0 + lane(); c < cols; c += kWarpSize) x[r * cols + c] = narrow<T>(value);
}

// ---- launchers -------------------------------------------------------------------------------

namespace {

class CudaVocabulary final : public VocabularyOps {
 public:
  explicit CudaVocabulary(SharedState state) : state_(std::move(state)) {}

  void gather_rows(const Tensor& table, std::span<const std::int64_t> rows, Tensor& out) override {
    require_on_device("gather_rows", out);
    require_on_device("gather_rows", table);
    if (out.cols() != table.cols() || out.dtype() != table.dtype()) {
      throw InternalError("CudaDevice::gather_rows: rows of " + to_string(out.extents()) +
                          " and of the table " + to_string(table.extents()) + " differ");
    }
    require_index_per_row("gather_rows", out, rows.size());
    const Launch l = row_launch(out.rows());
    if (l.blocks == 0 || out.cols() == 0) return;
    const DeviceIndices ids(rows, state_->stream);
    dispatch(table.dtype(), [&]<typename T>() {
      gather_rows_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(table), ids.get(), typed<T>(out), out.rows(), table.rows(), out.cols());
    });
    state_->after_launch("gather_rows_kernel");
  }

  void scatter_add_rows(const Tensor& src, std::span<const std::int64_t> rows,
                        Tensor& table) override {
    require_on_device("scatter_add_rows", src);
    require_on_device("scatter_add_rows", table);
    if (src.cols() != table.cols() || src.dtype() != table.dtype()) {
      throw InternalError("CudaDevice::scatter_add_rows: rows of " + to_string(src.extents()) +
                          " and of the table " + to_string(table.extents()) + " differ");
    }
    require_index_per_row("scatter_add_rows", src, rows.size());
    const Launch l = column_launch(src.cols());
    if (l.blocks == 0 || src.rows() == 0) return;
    const DeviceIndices ids(rows, state_->stream);
    dispatch(table.dtype(), [&]<typename T>() {
      scatter_add_rows_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(src), ids.get(), typed<T>(table), src.rows(), table.rows(), src.cols());
    });
    state_->after_launch("scatter_add_rows_kernel");
  }

  void row_max(const Tensor& x, Tensor& out) override {
    require_per_row("row_max", x, out);
    if (x.cols() == 0) throw InternalError("CudaDevice::row_max: rows without elements");
    const Launch l = row_launch(x.rows());
    if (l.blocks == 0) return;
    dispatch(x.dtype(), [&]<typename T>() {
      row_max_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(typed<T>(x), typed<T>(out),
                                                                      x.rows(), x.cols());
    });
    state_->after_launch("row_max_kernel");
  }

  void cross_entropy_sums(const Tensor& logits, const Tensor& max,
                          std::span<const std::int64_t> targets, Tensor& sums) override {
    require_per_row("cross_entropy_sums", logits, max);
    require_index_per_row("cross_entropy_sums", logits, targets.size());
    require_row_pairs("cross_entropy_sums", logits, sums);
    const Launch l = row_launch(logits.rows());
    if (l.blocks == 0) return;
    const DeviceIndices t(targets, state_->stream);
    dispatch(logits.dtype(), [&]<typename T>() {
      cross_entropy_sums_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(logits), typed<T>(max), t.get(), typed<T>(sums), logits.rows(), logits.cols());
    });
    state_->after_launch("cross_entropy_sums_kernel");
  }

  void cross_entropy_backward(const Tensor& logits, const Tensor& max, const Tensor& sums,
                              std::span<const std::int64_t> targets, double scale,
                              Tensor& dlogits) override {
    require_same("cross_entropy_backward", logits, dlogits);
    require_per_row("cross_entropy_backward", logits, max);
    require_index_per_row("cross_entropy_backward", logits, targets.size());
    require_row_pairs("cross_entropy_backward", logits, sums);
    const Launch l = row_launch(logits.rows());
    if (l.blocks == 0) return;
    const DeviceIndices t(targets, state_->stream);
    dispatch(logits.dtype(), [&]<typename T>() {
      cross_entropy_backward_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(logits), typed<T>(max), typed<T>(sums), t.get(), static_cast<Acc<T>>(scale),
          typed<T>(dlogits), logits.rows(), logits.cols());
    });
    state_->after_launch("cross_entropy_backward_kernel");
  }

  void fill_columns_from(Tensor& x, std::int64_t col0, double value) override {
    require_on_device("fill_columns_from", x);
    if (col0 < 0 || col0 > x.cols()) {
      throw InternalError("CudaDevice::fill_columns_from: column " + std::to_string(col0) + " of " +
                          to_string(x.extents()));
    }
    const Launch l = row_launch(x.rows());
    if (l.blocks == 0 || col0 == x.cols()) return;
    dispatch(x.dtype(), [&]<typename T>() {
      fill_columns_from_kernel<T><<<grid_of(l), l.threads, 0, state_->stream>>>(
          typed<T>(x), x.rows(), x.cols(), col0, static_cast<Acc<T>>(value));
    });
    state_->after_launch("fill_columns_from_kernel");
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<VocabularyOps> make_vocabulary_ops(SharedState state) {
  return std::make_unique<CudaVocabulary>(std::move(state));
}

}  // namespace tplab::cuda
