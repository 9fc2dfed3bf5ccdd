/// @file
/// f32 GEMM through oneDNN's dnnl_sgemm, on one thread. CpuDevice uses it for f32 matmuls when
/// oneDNN was found at configure time (TPLAB_HAVE_ONEDNN); Eigen does everything else.
#pragma once

#include <cstdint>
#include <string>

namespace tplab::onednn {

/// C[m, n] = alpha op(A) op(B) + beta C on row-major matrices with leading dimensions lda,
/// ldb and ldc; op(A) is [m, k] and op(B) is [k, n]. With beta = 0, C is not read. Runs on
/// the calling thread alone: the parallelism of a run is its MPI ranks.
void sgemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
           float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
           float beta, float* c, std::int64_t ldc);

/// "oneDNN 2.6.3", for reports.
std::string version();

}  // namespace tplab::onednn
