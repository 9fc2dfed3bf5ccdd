/// @file
/// GemmOps on the GPU: every matrix product is one cuBLAS call (cublasGemmEx, or
/// cublasGemmStridedBatchedEx for a batch), planned by launch_plan.hpp's plan_gemm. Storage
/// in f64, f32 or bf16; compute in f64 for f64 and f32 (no TF32) otherwise.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_state.cuh"
#include "device/cuda/launch_plan.hpp"
#include "device/ops/cuda_ops.hpp"

namespace tplab::cuda {
namespace {

/// cuBLAS's name of a storage type.
cudaDataType_t blas_type(DType dtype) {
  switch (dtype) {
    case DType::f64:
      return CUDA_R_64F;
    case DType::f32:
      return CUDA_R_32F;
    case DType::bf16:
      return CUDA_R_16BF;
  }
  throw InternalError("CudaDevice: unknown dtype");
}

/// One cuBLAS call for a plan: GemmEx for one matrix, GemmStridedBatchedEx for several.
/// Compute in f64 for f64 and in f32 (no TF32) for f32 and bf16.
void run_gemm(const CudaDevice::State& state, const GemmPlan& p, const Tensor& a,
              const Tensor& b, Tensor& c, double alpha, double beta, bool batched) {
  if (p.rows == 0 || p.cols == 0 || p.batch == 0) return;
  const cudaDataType_t type = blas_type(c.dtype());
  const bool f64 = c.dtype() == DType::f64;
  const cublasComputeType_t compute = f64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void* al = f64 ? static_cast<const void*>(&alpha) : &alpha32;
  const void* be = f64 ? static_cast<const void*>(&beta) : &beta32;
  const cublasOperation_t op_first = p.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = p.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N;
  // cuBLAS's first operand is our B and its second our A (launch_plan.hpp says why).
  if (!batched) {
    check_blas(cublasGemmEx(state.blas, op_first, op_second, p.rows, p.cols, p.depth, al, b.data(),
                            type, p.ld_first, a.data(), type, p.ld_second, be, c.data(), type,
                            p.ldc, compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
    state.after_launch("cublasGemmEx");
  } else {
    check_blas(cublasGemmStridedBatchedEx(state.blas, op_first, op_second, p.rows, p.cols, p.depth,
                                          al, b.data(), type, p.ld_first, p.stride_first, a.data(),
                                          type, p.ld_second, p.stride_second, be, c.data(), type,
                                          p.ldc, p.stride_c, p.batch, compute, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
    state.after_launch("cublasGemmStridedBatchedEx");
  }
}

class CudaGemm final : public GemmOps {
 public:
  explicit CudaGemm(SharedState state) : state_(std::move(state)) {}

  void matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c, double alpha,
              double beta) override {
    require_one_dtype("matmul", a, b, c);
    // [m, k] x [k, n] -> [m, n] after the transposes
    const GemmPlan plan = plan_gemm(a.extents(), ta == Transpose::yes, b.extents(),
                                                tb == Transpose::yes, c.extents());
    run_gemm(*state_, plan, a, b, c, alpha, beta, false);
  }

  void batched_matmul(const Tensor& a, Transpose ta, const Tensor& b, Transpose tb, Tensor& c,
                      double alpha, double beta) override {
    require_one_dtype("batched_matmul", a, b, c);
    // [batch, m, k] x [batch, k, n] -> [batch, m, n] after the transposes
    const GemmPlan plan = plan_batched_gemm(
        a.extents(), ta == Transpose::yes, b.extents(), tb == Transpose::yes, c.extents());
    run_gemm(*state_, plan, a, b, c, alpha, beta, true);
  }

 private:
  SharedState state_;
};

}  // namespace

std::unique_ptr<GemmOps> make_gemm_ops(SharedState state) {
  return std::make_unique<CudaGemm>(std::move(state));
}

}  // namespace tplab::cuda
