/// @file
/// f64 GEMM through OpenBLAS's cblas_dgemm, on one thread. CpuDevice uses it for f64 matmuls
/// when OpenBLAS was found at configure time (TPLAB_HAVE_OPENBLAS); oneDNN, the f32 path, has
/// no f64 GEMM.
#pragma once

#include <cstdint>
#include <string>

namespace tplab::openblas {

/// C[m, n] = alpha op(A) op(B) + beta C on row-major matrices with leading dimensions lda,
/// ldb and ldc; op(A) is [m, k] and op(B) is [k, n]. With beta = 0, C is not read. Runs on
/// the calling thread alone: the parallelism of a run is its MPI ranks.
void dgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
           double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
           double beta, double* c, std::int64_t ldc);

/// "OpenBLAS 0.3.21 (Zen kernels)", for reports.
std::string version();

}  // namespace tplab::openblas
