/// @file
/// GEMM through oneDNN, on one thread: f32 through dnnl_sgemm, and bf16 through oneDNN's matmul
/// primitive on CPUs with bf16 matmul instructions (AVX512-BF16, AMX). CpuDevice uses them when
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

/// The instruction set oneDNN's bf16 kernels run on here ("avx512_core_amx", "avx512_core_bf16"),
/// or "" when this CPU has no bf16 matmul instructions (or DNNL_MAX_CPU_ISA keeps oneDNN from
/// them): oneDNN's bf16 matmul would then run an emulation of its own, several times slower
/// than an f32 GEMM, or not at all.
std::string bf16_isa();

/// C[m, n] = alpha op(A) op(B) for bf16 A and B (their raw 16-bit patterns) into an f32 C, the
/// products summed in f32 by oneDNN's bf16 kernels; the extents and leading dimensions as for
/// sgemm. Requires bf16_isa() to be non-empty. The primitive for each form is made once and
/// kept.
void bf16_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k,
               float alpha, const std::uint16_t* a, std::int64_t lda, const std::uint16_t* b,
               std::int64_t ldb, float* c, std::int64_t ldc);

/// "oneDNN 2.6.3", for reports.
std::string version();

}  // namespace tplab::onednn
