/// @file
/// Turning CUDA runtime errors into tplab's InternalError. For .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace tplab::cuda {

/// Throws InternalError naming `call` and CUDA's description when `status` is an error.
inline void check_cuda(cudaError_t status, const std::string& call) {
  if (status == cudaSuccess) return;
  throw InternalError(call + " failed: " + cudaGetErrorName(status) + ": " +
                      cudaGetErrorString(status));
}

/// Checks the launch just issued on `stream`: a bad configuration, or an earlier kernel's fault
/// reported here. With `wait` (TPLAB_CUDA_SYNC=1, launch_sync.hpp) it also waits for the stream
/// and checks how the work ended, so that a fault inside `work` (a kernel, a cuBLAS call) is
/// reported under its name rather than at a later synchronization under another's.
inline void check_launch(const std::string& work, cudaStream_t stream, bool wait) {
  check_cuda(cudaGetLastError(), work);
  if (wait) check_cuda(cudaStreamSynchronize(stream), work + " (TPLAB_CUDA_SYNC=1 waited for it)");
}

}  // namespace tplab::cuda
