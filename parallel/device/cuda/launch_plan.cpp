#include "device/cuda/launch_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/error.hpp"
#include "device/shape_forms.hpp"

namespace tplab::cuda {
namespace {

/// The largest gridDim.x CUDA accepts, and the largest gridDim.y.
constexpr std::int64_t kMaxGridX = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxGridY = 65535;
/// Blocks per multiprocessor an element-wise launch aims for (a grid-stride loop does the rest).
constexpr std::int64_t kBlocksPerMultiprocessor = 16;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

int as_int(std::int64_t v, const char* what) {
  if (v > std::numeric_limits<int>::max()) {
    throw InternalError(fmt::format("cuBLAS takes 32-bit sizes; {} = {} is too large", what, v));
  }
  return static_cast<int>(v);
}

}  // namespace

Launch elementwise_launch(std::int64_t elements, int multiprocessors) {
  check(elements >= 0 && multiprocessors > 0, "elementwise_launch: bad arguments");
  if (elements == 0) return {0, kThreadsPerBlock};
  const std::int64_t needed =
      ceil_div(elements, std::int64_t{kThreadsPerBlock} * kElementsPerThread);
  return {std::min(needed, kBlocksPerMultiprocessor * multiprocessors), kThreadsPerBlock};
}

Launch row_launch(std::int64_t rows) {
  check(rows >= 0, "row_launch: negative rows");
  const std::int64_t blocks = ceil_div(rows, kRowsPerBlock);
  if (blocks > kMaxGridX) {
    throw InternalError(
        fmt::format("row_launch: {} rows need more than {} blocks", rows, kMaxGridX));
  }
  return {blocks, kThreadsPerBlock};
}

Launch column_launch(std::int64_t cols) {
  check(cols >= 0, "column_launch: negative columns");
  const std::int64_t blocks = ceil_div(cols, kThreadsPerBlock);
  if (blocks > kMaxGridX) {
    throw InternalError(
        fmt::format("column_launch: {} columns need more than {} blocks", cols, kMaxGridX));
  }
  return {blocks, kThreadsPerBlock};
}

ColumnSumPlan column_sum_plan(std::int64_t rows, std::int64_t cols, int multiprocessors) {
  check(rows >= 0 && cols >= 0 && multiprocessors > 0, "column_sum_plan: bad arguments");
  ColumnSumPlan plan;
  plan.column_tiles = ceil_div(cols, kColumnTile);
  if (plan.column_tiles > kMaxGridX) {
    throw InternalError(fmt::format("column_sum_plan: {} columns are too many", cols));
  }
  // Aim for about 4 blocks per multiprocessor, each summing at least kRowsPerBlock rows.
  const std::int64_t wanted =
      ceil_div(4 * std::int64_t{multiprocessors}, std::max<std::int64_t>(plan.column_tiles, 1));
  const std::int64_t most = std::max<std::int64_t>(ceil_div(rows, kRowsPerBlock), 1);
  const std::int64_t chunks = std::clamp<std::int64_t>(wanted, 1, std::min(most, kMaxGridY));
  plan.rows_per_chunk = ceil_div(rows, chunks);
  plan.row_chunks = rows == 0 ? 1 : ceil_div(rows, plan.rows_per_chunk);
  return plan;
}

GemmPlan plan_gemm(const Extents& a, bool transpose_a, const Extents& b, bool transpose_b,
                   const Extents& c) {
  if (a.size() != 2 || b.size() != 2 || c.size() != 2) {
    throw InternalError(fmt::format("CudaDevice::matmul: operands must be 2-D; got {} {} {}",
                                    to_string(a), to_string(b), to_string(c)));
  }
  const std::int64_t m = transpose_a ? a[1] : a[0], k = transpose_a ? a[0] : a[1];
  const std::int64_t kb = transpose_b ? b[1] : b[0], n = transpose_b ? b[0] : b[1];
  if (m != c[0] || n != c[1] || k != kb) {
    throw InternalError("CudaDevice::matmul: " + matmul_forms(m, k, kb, n, c[0], c[1]));
  }
  GemmPlan plan;
  plan.transpose_first = transpose_b;
  plan.transpose_second = transpose_a;
  plan.rows = as_int(n, "n");
  plan.cols = as_int(m, "m");
  plan.depth = as_int(k, "k");
  // cuBLAS demands a leading dimension of at least 1 even for empty matrices.
  plan.ld_first = std::max(as_int(b[1], "ldb"), 1);
  plan.ld_second = std::max(as_int(a[1], "lda"), 1);
  plan.ldc = std::max(as_int(c[1], "ldc"), 1);
  plan.stride_first = b[0] * b[1];
  plan.stride_second = a[0] * a[1];
  plan.stride_c = c[0] * c[1];
  return plan;
}

GemmPlan plan_batched_gemm(const Extents& a, bool transpose_a, const Extents& b, bool transpose_b,
                           const Extents& c) {
  if (a.size() != 3 || b.size() != 3 || c.size() != 3) {
    throw InternalError(fmt::format(
        "CudaDevice::batched_matmul: operands must be 3-D [batch, rows, cols]; got {} {} {}",
        to_string(a), to_string(b), to_string(c)));
  }
  if (a[0] != b[0] || b[0] != c[0]) {
    throw InternalError(fmt::format("CudaDevice::batched_matmul: batch sizes differ: {} {} {}",
                                    to_string(a), to_string(b), to_string(c)));
  }
  GemmPlan plan = plan_gemm({a[1], a[2]}, transpose_a, {b[1], b[2]}, transpose_b, {c[1], c[2]});
  plan.batch = as_int(a[0], "batch");
  return plan;
}

}  // namespace tplab::cuda
