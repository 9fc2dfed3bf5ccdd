/// @file
/// Turning CUDA runtime errors into tplab's InternalError. For .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace tplab::cuda {

/// Throws InternalError naming `call` and CUDA's description when `status` is an error.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  throw InternalError(std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
                      cudaGetErrorString(status));
}

/// Checks the launch just issued (a bad configuration, or an earlier kernel's fault).
inline void check_launch(const char* kernel) {
  check_cuda(cudaGetLastError(), kernel);
}

}  // namespace tplab::cuda
