#include <cuda_runtime.h>

#include "comm/cuda_staging_copy.hpp"
#include "device/cuda/cuda_checks.hpp"
#include "device/cuda/cuda_status.cuh"

namespace tplab {

void CudaStagingCopy::to_host(const Tensor& src, std::span<std::byte> host) {
  cuda::require_on_device("to_host", src);
  check(host.size() == src.bytes(), "CudaStagingCopy::to_host: sizes differ");
  if (host.empty()) return;
  auto stream = static_cast<cudaStream_t>(device_.stream());
  cuda::check_cuda(
      cudaMemcpyAsync(host.data(), src.data(), host.size(), cudaMemcpyDeviceToHost, stream),
      "cudaMemcpyAsync (staging to host)");
  cuda::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

void CudaStagingCopy::to_device(std::span<const std::byte> host, Tensor& dst) {
  cuda::require_on_device("to_device", dst);
  check(host.size() == dst.bytes(), "CudaStagingCopy::to_device: sizes differ");
  if (host.empty()) return;
  auto stream = static_cast<cudaStream_t>(device_.stream());
  cuda::check_cuda(
      cudaMemcpyAsync(dst.data(), host.data(), host.size(), cudaMemcpyHostToDevice, stream),
      "cudaMemcpyAsync (staging to device)");
  cuda::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

}  // namespace tplab
