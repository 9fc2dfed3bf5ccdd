/// @file
/// CudaDevice::State: what every launcher of CudaDevice needs (the stream, the cuBLAS handle,
/// the GPU's properties), shared by the device, its families of operations (device/ops/*.cu)
/// and its tensors' deleters. CUDA code only.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"
#include "device/cuda/cuda_device.hpp"
#include "device/cuda/cuda_status.cuh"

namespace tplab {

struct CudaDevice::State {
  int ordinal = 0;
  cudaDeviceProp properties{};
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  bool sync_after_launch = false;  // TPLAB_CUDA_SYNC=1

  /// Checks the kernel or cuBLAS call just issued; with TPLAB_CUDA_SYNC=1 waits for it too.
  void after_launch(const std::string& work) const {
    cuda::check_launch(work, stream, sync_after_launch);
  }

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() {
    // Errors here cannot be reported (a destructor); the process is ending or the device is.
    if (stream != nullptr) cudaStreamSynchronize(stream);
    if (blas != nullptr) cublasDestroy(blas);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

namespace cuda {

/// Throws InternalError naming the cuBLAS call unless it succeeded.
inline void check_blas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw InternalError(std::string(call) + " failed: " + cublasGetStatusString(status));
}

}  // namespace cuda
}  // namespace tplab
