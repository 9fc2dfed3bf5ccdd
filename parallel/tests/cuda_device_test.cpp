// CudaDevice against CpuDevice, operation by operation (device_conformance_test.cpp), in f64,
// f32 and bf16. Skips, saying why, on a machine without a GPU; fails where a GPU's driver is too
// old.
#include "device/cuda/cuda_device.hpp"

#include "core/error.hpp"
#include "device_conformance.hpp"

namespace tplab {
namespace {

/// The first GPU, or null with the reason on a machine that has none; a GPU the driver or CUDA
/// cannot use is an error, and says why.
std::unique_ptr<Device> first_gpu(std::string& skip) {
  try {
    CudaDevice::visible_devices();
  } catch (const NoDeviceError& e) {
    if (e.reason() != NoDeviceError::Reason::absent) throw;
    skip = e.what();
    return nullptr;
  }
  return std::make_unique<CudaDevice>(0);
}

INSTANTIATE_TEST_SUITE_P(Cuda, DeviceConformance,
                         testing::Values(DeviceUnderTest{"cuda_f64", DType::f64, first_gpu},
                                         DeviceUnderTest{"cuda_f32", DType::f32, first_gpu},
                                         DeviceUnderTest{"cuda_bf16", DType::bf16, first_gpu}),
                         device_label);

}  // namespace
}  // namespace tplab
