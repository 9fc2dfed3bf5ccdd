/// @file
/// CudaStagingCopy: DeviceStagedComm's copies between GPU memory and the host.
#pragma once

#include "comm/staging_copy.hpp"
#include "device/cuda/cuda_device.hpp"

namespace tplab {

/// Copies on the CudaDevice's stream (so after the kernels that produced the data) and waits
/// for the copy before returning.
class CudaStagingCopy final : public StagingCopy {
 public:
  /// Copies for tensors of `device`, which must outlive this object.
  explicit CudaStagingCopy(CudaDevice& device) : device_(device) {}
  void to_host(const Tensor& src, std::span<std::byte> host) override;
  void to_device(std::span<const std::byte> host, Tensor& dst) override;

 private:
  CudaDevice& device_;
};

}  // namespace tplab
