/// @file
/// What every launcher of CudaDevice shares: the call of a template with the storage type of a
/// dtype, typed pointers into a tensor, the grid of a launch plan, and host indices copied to
/// the device for one call. CUDA code only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <span>

#include "core/error.hpp"
#include "core/tensor.hpp"
#include "device/cuda/cuda_status.cuh"
#include "device/cuda/launch_plan.hpp"

namespace tplab::cuda {

/// Calls f.template operator()<T>() with the storage type of `dtype`.
template <typename F>
void dispatch(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f64:
      f.template operator()<double>();
      return;
    case DType::f32:
      f.template operator()<float>();
      return;
    case DType::bf16:
      f.template operator()<__nv_bfloat16>();
      return;
  }
  throw InternalError("CudaDevice: unknown dtype");
}

/// The tensor's device memory as T*.
template <typename T>
T* typed(Tensor& t) {
  return static_cast<T*>(t.data());
}
/// The tensor's device memory as const T*.
template <typename T>
const T* typed(const Tensor& t) {
  return static_cast<const T*>(t.data());
}

/// The grid of a one-dimensional launch.
inline dim3 grid_of(const Launch& l) {
  return dim3(static_cast<unsigned>(l.blocks));
}

/// Host indices (token ids, targets) copied to the device for one call. The copy from pageable
/// memory returns once the values are staged, so the host span may go away; the device copy is
/// freed on the stream after the kernels that read it.
class DeviceIndices {
 public:
  DeviceIndices(std::span<const std::int64_t> host, cudaStream_t stream) : stream_(stream) {
    if (host.empty()) return;
    check_cuda(cudaMallocAsync(reinterpret_cast<void**>(&data_), host.size_bytes(), stream),
               "cudaMallocAsync (indices)");
    check_cuda(
        cudaMemcpyAsync(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream),
        "cudaMemcpyAsync (indices)");
  }
  ~DeviceIndices() {
    if (data_ != nullptr) cudaFreeAsync(data_, stream_);
  }
  DeviceIndices(const DeviceIndices&) = delete;
  DeviceIndices& operator=(const DeviceIndices&) = delete;
  /// The indices on the device.
  const std::int64_t* get() const { return data_; }

 private:
  std::int64_t* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace tplab::cuda
