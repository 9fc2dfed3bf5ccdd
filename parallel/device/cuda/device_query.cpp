#include "device/cuda/device_query.hpp"

#include <fmt/format.h>

namespace tplab::cuda {

std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

std::string minimum_driver_for(int runtime_version) {
  // NVIDIA's release notes, "CUDA Toolkit and Minimum Required Driver Version" (Linux).
  switch (runtime_version / 1000) {
    case 12:
      return "525";
    case 13:
      return "580";
    default:
      return "";
  }
}

bool found_gpu(const DeviceQuery& q) {
  return q.status == DeviceQuery::Status::success && q.count > 0;
}

NoDeviceError unusable_device_error(const DeviceQuery& q) {
  using Status = DeviceQuery::Status;
  using Reason = NoDeviceError::Reason;
  const std::string runtime = cuda_version_text(q.runtime_version);
  const std::string driver = minimum_driver_for(q.runtime_version);
  const std::string advice = "; the cuda backend needs an NVIDIA GPU and its driver";
  if (q.status == Status::success || q.status == Status::no_device) {
    return NoDeviceError(
        fmt::format("no CUDA device found (the CUDA runtime sees no GPU{}){}",
                    q.status == Status::no_device ? "; CUDA_VISIBLE_DEVICES may hide them" : "",
                    advice),
        Reason::absent);
  }
  if (q.status == Status::insufficient_driver && q.driver_version == 0) {
    // The runtime reports a missing driver (no libcuda.so.1) as an insufficient one.
    return NoDeviceError(
        fmt::format("no CUDA device found (no NVIDIA driver is installed: the CUDA {} runtime "
                    "finds no libcuda.so.1){}",
                    runtime, advice),
        Reason::absent);
  }
  if (q.status == Status::insufficient_driver) {
    return NoDeviceError(
        fmt::format("driver too old: the NVIDIA driver supports CUDA {}, and this build's CUDA {} "
                    "runtime needs a driver for CUDA {} or newer{}",
                    cuda_version_text(q.driver_version), runtime, runtime,
                    driver.empty() ? "" : fmt::format(" (NVIDIA {} or newer)", driver)),
        Reason::unusable);
  }
  return NoDeviceError(
      fmt::format("CUDA failed to start: {} (the NVIDIA driver supports CUDA {}, this build's "
                  "runtime is CUDA {})",
                  q.error, q.driver_version == 0 ? "-" : cuda_version_text(q.driver_version),
                  runtime),
      Reason::unusable);
}

}  // namespace tplab::cuda
