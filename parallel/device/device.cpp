#include "device/device.hpp"

namespace tplab {

Tensor Device::zeros(const Extents& extents, DType dtype) {
  Tensor t = empty(extents, dtype);
  fill(t, 0.0);
  return t;
}

}  // namespace tplab
