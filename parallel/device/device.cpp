#include "device/device.hpp"

#include "core/error.hpp"

namespace tplab {

Device::Device(DeviceFamilies families) : families_(std::move(families)) {
  const DeviceFamilies& f = families_;
  if (!f.gemm || !f.elementwise || !f.gelu || !f.softmax || !f.heads || !f.layernorm ||
      !f.vocabulary || !f.optimizer) {
    throw InternalError(
        "Device: a backend left a family of operations out; give each of "
        "DeviceFamilies' members an object");
  }
}

Tensor Device::zeros(const Extents& extents, DType dtype) {
  Tensor t = empty(extents, dtype);
  fill(t, 0.0);
  return t;
}

}  // namespace tplab
