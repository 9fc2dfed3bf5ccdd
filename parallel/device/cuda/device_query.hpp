/// @file
/// What the CUDA runtime's device query means for the user: a GPU to use, none at all, a
/// driver too old for this build's runtime, or another failure. Plain C++ (cuda_device.cu fills
/// in the query), so every message is tested on machines without a GPU.
#pragma once

#include <string>

#include "core/error.hpp"

namespace tplab::cuda {

/// cudaGetDeviceCount's answer and the versions that explain it.
struct DeviceQuery {
  /// What cudaGetDeviceCount returned.
  enum class Status {
    success,              ///< cudaSuccess (count may still be 0)
    no_device,            ///< cudaErrorNoDevice: the driver sees no GPU (or none is visible)
    insufficient_driver,  ///< cudaErrorInsufficientDriver: no driver, or one too old
    other,                ///< any other error, named in `error`
  };
  Status status = Status::success;  ///< what cudaGetDeviceCount returned
  int count = 0;                    ///< GPUs seen, when status is success
  int driver_version = 0;   ///< cudaDriverGetVersion: 1000 major + 10 minor; 0 without a driver
  int runtime_version = 0;  ///< cudaRuntimeGetVersion of this build's runtime
  std::string error;        ///< CUDA's name and description of the error, for `other`
};

/// "13.0" for CUDA's 13000.
std::string cuda_version_text(int version);

/// The oldest NVIDIA Linux driver branch for a CUDA major version ("580" for 13), or "" when
/// this table does not know it.
std::string minimum_driver_for(int runtime_version);

/// True when the query found a GPU to use.
bool found_gpu(const DeviceQuery& q);

/// The error for a query that found no GPU to use, exit 4 either way. Only a machine without a
/// GPU (or without any NVIDIA driver) gets Reason::absent and a message that starts with "no
/// CUDA device found", which the GPU tests' skip pattern matches. A driver too old for the
/// runtime ("driver too old", with both versions) or any other failure (CUDA's own words and
/// the driver's version) is Reason::unusable: a test must fail on it, not skip.
NoDeviceError unusable_device_error(const DeviceQuery& q);

}  // namespace tplab::cuda
