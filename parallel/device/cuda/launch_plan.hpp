/// @file
/// The host-side arithmetic of CudaDevice's launches: grid sizes and the column-major form of
/// row-major matrix products. Plain C++, so it is tested on machines without a GPU.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace tplab::cuda {

/// Threads per block of the element-wise kernels.
inline constexpr int kThreadsPerBlock = 256;
/// Elements each thread of an element-wise kernel takes per pass of its loop, all loaded
/// before any is stored: enough loads in flight to keep the memory busy.
inline constexpr int kElementsPerThread = 8;
/// Threads in a warp.
inline constexpr int kWarpSize = 32;
/// Rows per block of the row kernels, one warp per row.
inline constexpr int kRowsPerBlock = kThreadsPerBlock / kWarpSize;
/// Column-sum blocks are kColumnTile columns (one per lane) by kRowsPerBlock warps.
inline constexpr int kColumnTile = kWarpSize;

/// A one-dimensional launch. blocks == 0 means there is nothing to do (no launch at all: a
/// grid of zero blocks is an error in CUDA).
struct Launch {
  std::int64_t blocks = 0;  ///< gridDim.x
  int threads = 0;          ///< blockDim.x
};

/// An element-wise kernel over `elements`, kElementsPerThread per thread and pass, with a
/// grid-stride loop: enough blocks to fill every multiprocessor several times over, and no
/// more than the elements need.
Launch elementwise_launch(std::int64_t elements, int multiprocessors);

/// A row kernel: one warp per row, kRowsPerBlock rows per block.
Launch row_launch(std::int64_t rows);

/// One thread per column, kThreadsPerBlock columns per block: the kernels that walk down every
/// column in order (the embedding's deterministic scatter-add).
Launch column_launch(std::int64_t cols);

/// Column sums in two passes: blocks of kColumnTile columns x kRowsPerBlock warps each sum one
/// chunk of rows into a partial row of f32 (gridDim = column_tiles x row_chunks), then one
/// thread per column adds the row_chunks partial sums. Enough chunks to fill the GPU.
struct ColumnSumPlan {
  std::int64_t column_tiles = 0;    ///< gridDim.x of the first pass
  std::int64_t row_chunks = 0;      ///< gridDim.y of the first pass; rows of the partial sums
  std::int64_t rows_per_chunk = 0;  ///< rows one block of the first pass sums
};

/// The plan for column sums of a [rows, cols] matrix.
ColumnSumPlan column_sum_plan(std::int64_t rows, std::int64_t cols, int multiprocessors);

/// A row-major C[m, n] = op(A)[m, k] op(B)[k, n] as the column-major product cuBLAS computes.
/// Row-major C is column-major C^T, and C^T = op(B)^T op(A)^T, whose column-major operands are
/// B and A as they are stored. So cuBLAS gets B first and A second, with the same transposes:
///   cublasGemmEx(transa = op of B, transb = op of A, m = n, n = m, k, B, ldb, A, lda, C, ldc)
/// where every leading dimension is the stored row length (cols) of that tensor.
struct GemmPlan {
  bool transpose_first = false;    ///< cuBLAS's transa: B is transposed (tb == yes)
  bool transpose_second = false;   ///< cuBLAS's transb: A is transposed (ta == yes)
  int rows = 0;                    ///< cuBLAS's m: the columns n of C
  int cols = 0;                    ///< cuBLAS's n: the rows m of C
  int depth = 0;                   ///< cuBLAS's k
  int ld_first = 0;                ///< cuBLAS's lda: B's stored row length
  int ld_second = 0;               ///< cuBLAS's ldb: A's stored row length
  int ldc = 0;                     ///< C's row length
  int batch = 1;                   ///< matrices in a batched product
  std::int64_t stride_first = 0;   ///< elements between consecutive B matrices
  std::int64_t stride_second = 0;  ///< elements between consecutive A matrices
  std::int64_t stride_c = 0;       ///< elements between consecutive C matrices
};

/// The plan for 2-D tensors a, b, c; throws InternalError when the shapes do not fit or an
/// extent exceeds cuBLAS's 32-bit sizes.
GemmPlan plan_gemm(const Extents& a, bool transpose_a, const Extents& b, bool transpose_b,
                   const Extents& c);

/// The plan for 3-D tensors [batch, rows, cols] multiplied matrix by matrix.
GemmPlan plan_batched_gemm(const Extents& a, bool transpose_a, const Extents& b, bool transpose_b,
                           const Extents& c);

}  // namespace tplab::cuda
