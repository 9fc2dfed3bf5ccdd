// The CUDA backend of a build without CUDA: every request says so, with its own exit code.
#include "backend/cuda_backend.hpp"
#include "core/error.hpp"

namespace tplab::cuda {
namespace {

[[noreturn]] void no_cuda() {
  throw NoDeviceError(
      "no CUDA device: this build has no CUDA backend (nvcc or NCCL was not found when it was "
      "configured; see README, \"GPUs\")");
}

}  // namespace

bool built_with_cuda() {
  return false;
}

int visible_devices() {
  no_cuda();
}

std::unique_ptr<Device> make_device_for_rank() {
  no_cuda();
}

std::unique_ptr<Comm> make_world(Device&, const std::string&, std::shared_ptr<CommCounters>,
                                 std::shared_ptr<TraceRecorder>) {
  no_cuda();
}

std::string gpu_name(Device&) {
  no_cuda();
}

double time_on_device(Device&, const std::function<void()>&) {
  no_cuda();
}

}  // namespace tplab::cuda
