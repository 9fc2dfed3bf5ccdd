#include "kept_bytes.hpp"

#include "core/error.hpp"

namespace tplab::verify {

KeptBytesProbe::KeptBytesProbe(const Device& device, const Tensor& x)
    : device_(device), before_(device.allocations().live_bytes() - x.bytes()) {
  check(x.device() == device.kind(), "KeptBytesProbe: x is not on the device measured");
}

std::size_t forward_and_measure_kept(Device& device, ParallelModule& module, Tensor x) {
  const KeptBytesProbe probe(device, x);
  Tensor y = module.forward(x);
  device.synchronize();
  y = Tensor();
  x = Tensor();
  return probe.kept_bytes();
}

std::size_t KeptBytesProbe::kept_bytes() const {
  const std::size_t live = device_.allocations().live_bytes();
  check(live >= before_, "KeptBytesProbe: storage live before forward was freed by it");
  return live - before_;
}

}  // namespace tplab::verify
