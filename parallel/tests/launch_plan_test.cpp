// The host-side arithmetic of CudaDevice, on the CPU: grid sizes cover every element, row and
// column, and the column-major cuBLAS call a GemmPlan describes computes the row-major product.
#include "device/cuda/launch_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"

namespace tplab::cuda {
namespace {

TEST(LaunchPlan, ElementwiseCoversEveryElementWithBoundedGrids) {
  EXPECT_EQ(elementwise_launch(0, 132).blocks, 0);  // no launch at all
  EXPECT_EQ(elementwise_launch(1, 132).blocks, 1);
  const std::int64_t tile = kThreadsPerBlock * kElementsPerThread;  // one block's pass
  EXPECT_EQ(elementwise_launch(tile, 132).blocks, 1);
  EXPECT_EQ(elementwise_launch(tile + 1, 132).blocks, 2);
  const Launch big = elementwise_launch(std::int64_t{1} << 33, 132);
  EXPECT_EQ(big.threads, kThreadsPerBlock);
  EXPECT_EQ(big.blocks, 16 * 132);  // the grid-stride loop covers the rest
  EXPECT_THROW(elementwise_launch(-1, 132), InternalError);
  EXPECT_THROW(elementwise_launch(10, 0), InternalError);
}

TEST(LaunchPlan, RowsGetOneWarpEach) {
  EXPECT_EQ(row_launch(0).blocks, 0);
  EXPECT_EQ(row_launch(1).blocks, 1);
  EXPECT_EQ(row_launch(kRowsPerBlock).blocks, 1);
  EXPECT_EQ(row_launch(kRowsPerBlock + 1).blocks, 2);
  EXPECT_EQ(row_launch(1000).threads, kRowsPerBlock * kWarpSize);
}

TEST(LaunchPlan, ColumnsGetOneThreadEach) {
  EXPECT_EQ(column_launch(0).blocks, 0);
  EXPECT_EQ(column_launch(1).blocks, 1);
  EXPECT_EQ(column_launch(kThreadsPerBlock).blocks, 1);
  EXPECT_EQ(column_launch(kThreadsPerBlock + 1).blocks, 2);
  const Launch l = column_launch(1000);
  EXPECT_GE(l.blocks * l.threads, 1000);
  EXPECT_LT((l.blocks - 1) * l.threads, 1000);
}

TEST(LaunchPlan, ColumnSumsCoverEveryRowOnceAndEveryColumn) {
  for (std::int64_t rows : {0, 1, 7, 8, 9, 100, 16384, 1 << 22}) {
    for (std::int64_t cols : {1, 31, 32, 33, 4096, 16384}) {
      for (int sms : {1, 132}) {
        const ColumnSumPlan p = column_sum_plan(rows, cols, sms);
        SCOPED_TRACE(testing::Message() << rows << " x " << cols << " on " << sms);
        EXPECT_GE(p.column_tiles * kColumnTile, cols);
        EXPECT_LT((p.column_tiles - 1) * kColumnTile, cols);
        EXPECT_GE(p.row_chunks, 1);
        EXPECT_LE(p.row_chunks, 65535);
        EXPECT_GE(p.row_chunks * p.rows_per_chunk, rows);  // every row in a chunk
        if (rows > 0) {
          EXPECT_LT((p.row_chunks - 1) * p.rows_per_chunk, rows);  // no chunk is empty
        }
      }
    }
  }
  // A tall, narrow matrix is split into many chunks so that the GPU fills up.
  EXPECT_GT(column_sum_plan(16384, 4096, 132).row_chunks, 1);
}

/// What cuBLAS computes for a plan, literally: column-major C = op(first) op(second) with the
/// leading dimensions and strides of the plan (alpha 1, beta 0).
std::vector<double> column_major_gemm(const GemmPlan& p, const std::vector<double>& first,
                                      const std::vector<double>& second) {
  std::vector<double> c(static_cast<std::size_t>(p.batch * p.stride_c), 0.0);
  for (int batch = 0; batch < p.batch; ++batch) {
    const double* a = first.data() + batch * p.stride_first;
    const double* b = second.data() + batch * p.stride_second;
    for (int i = 0; i < p.rows; ++i) {
      for (int j = 0; j < p.cols; ++j) {
        double sum = 0;
        for (int l = 0; l < p.depth; ++l) {
          const double av = p.transpose_first ? a[l + i * p.ld_first] : a[i + l * p.ld_first];
          const double bv = p.transpose_second ? b[j + l * p.ld_second] : b[l + j * p.ld_second];
          sum += av * bv;
        }
        c[static_cast<std::size_t>(batch * p.stride_c + i + j * p.ldc)] = sum;
      }
    }
  }
  return c;
}

/// The row-major product C[m, n] = op(A) op(B) for each batch, directly.
std::vector<double> row_major_gemm(std::int64_t batch, std::int64_t m, std::int64_t n,
                                   std::int64_t k, const std::vector<double>& a, bool ta,
                                   const std::vector<double>& b, bool tb) {
  std::vector<double> c(static_cast<std::size_t>(batch * m * n), 0.0);
  for (std::int64_t q = 0; q < batch; ++q) {
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::int64_t l = 0; l < k; ++l) {
          const double av = ta ? a[q * m * k + l * m + i] : a[q * m * k + i * k + l];
          const double bv = tb ? b[q * k * n + j * k + l] : b[q * k * n + l * n + j];
          sum += av * bv;
        }
        c[static_cast<std::size_t>(q * m * n + i * n + j)] = sum;
      }
    }
  }
  return c;
}

std::vector<double> counting(std::int64_t n, double offset) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = offset + 0.5 * i;
  return v;
}

TEST(GemmPlan, ColumnMajorCallComputesTheRowMajorProduct) {
  const std::int64_t m = 3, n = 5, k = 7;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message() << "ta " << ta << " tb " << tb);
      const Extents a = ta ? Extents{k, m} : Extents{m, k};
      const Extents b = tb ? Extents{n, k} : Extents{k, n};
      const auto av = counting(m * k, 1), bv = counting(k * n, -4);
      const GemmPlan p = plan_gemm(a, ta, b, tb, {m, n});
      EXPECT_EQ(column_major_gemm(p, bv, av), row_major_gemm(1, m, n, k, av, ta, bv, tb));
    }
  }
}

TEST(GemmPlan, BatchedCallComputesEveryMatrix) {
  const std::int64_t batch = 4, m = 6, n = 2, k = 3;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message() << "ta " << ta << " tb " << tb);
      const Extents a = ta ? Extents{batch, k, m} : Extents{batch, m, k};
      const Extents b = tb ? Extents{batch, n, k} : Extents{batch, k, n};
      const auto av = counting(batch * m * k, 2), bv = counting(batch * k * n, -3);
      const GemmPlan p = plan_batched_gemm(a, ta, b, tb, {batch, m, n});
      EXPECT_EQ(p.batch, batch);
      EXPECT_EQ(column_major_gemm(p, bv, av), row_major_gemm(batch, m, n, k, av, ta, bv, tb));
    }
  }
}

TEST(GemmPlan, RefusesShapesThatDoNotFit) {
  EXPECT_THROW(plan_gemm({3, 4}, false, {5, 6}, false, {3, 6}), InternalError);  // k differs
  EXPECT_THROW(plan_gemm({3, 4}, false, {4, 6}, false, {3, 5}), InternalError);  // n differs
  EXPECT_THROW(plan_gemm({3, 4}, true, {4, 6}, false, {3, 6}), InternalError);   // A^T is [4, 3]
  EXPECT_THROW(plan_gemm({3, 4, 1}, false, {4, 6}, false, {3, 6}), InternalError);
  EXPECT_THROW(plan_batched_gemm({2, 3, 4}, false, {3, 4, 6}, false, {2, 3, 6}), InternalError);
  EXPECT_THROW(
      plan_gemm({std::int64_t{1} << 32, 1}, false, {1, 1}, false, {std::int64_t{1} << 32, 1}),
      InternalError);  // beyond cuBLAS's 32-bit sizes
}

TEST(GemmPlan, EmptyMatricesKeepLegalLeadingDimensions) {
  const GemmPlan p = plan_gemm({0, 4}, false, {4, 0}, false, {0, 0});
  EXPECT_EQ(p.rows, 0);
  EXPECT_EQ(p.cols, 0);
  EXPECT_GE(p.ldc, 1);
  EXPECT_GE(p.ld_first, 1);
}

}  // namespace
}  // namespace tplab::cuda
