/// @file
/// StagingCopy: the copies between a tensor's memory and the host that DeviceStagedComm makes
/// around every collective, as a step of its own so that tests can run the same code on the host.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>

#include "core/tensor.hpp"

namespace tplab {

/// Copies a tensor's bytes to the host and back, unchanged. A GPU's version (CudaStagingCopy)
/// copies over PCIe on the device's stream and waits; HostStagingCopy copies host memory.
class StagingCopy {
 public:
  virtual ~StagingCopy() = default;
  /// host = the src.bytes() bytes of src; returns once host holds them.
  virtual void to_host(const Tensor& src, std::span<std::byte> host) = 0;
  /// dst = host (dst.bytes() bytes); returns once host may be reused.
  virtual void to_device(std::span<const std::byte> host, Tensor& dst) = 0;
};

/// StagingCopy for tensors in host memory: memcpy. Lets tests run DeviceStagedComm's staging
/// path on machines without a GPU (with host tensors that say they are device tensors).
class HostStagingCopy final : public StagingCopy {
 public:
  void to_host(const Tensor& src, std::span<std::byte> host) override {
    if (!host.empty()) std::memcpy(host.data(), src.data(), host.size());
  }
  void to_device(std::span<const std::byte> host, Tensor& dst) override {
    if (!host.empty()) std::memcpy(dst.data(), host.data(), host.size());
  }
};

}  // namespace tplab
