#include "backend/cuda_backend.hpp"

#include <mpi.h>

#include "comm/cuda_staging_copy.hpp"
#include "comm/device_staged_comm.hpp"
#include "comm/nccl_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cuda/cuda_device.hpp"
#include "device/cuda/gpu_sharing.hpp"

namespace tplab::cuda {
namespace {

/// This rank's index among the ranks on its node, and how many there are.
std::pair<int, int> node_rank_and_size() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0, size = 1;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  return {rank, size};
}

CudaDevice& cuda_device(Device& device) {
  auto* d = dynamic_cast<CudaDevice*>(&device);
  if (d == nullptr) throw InternalError("the CUDA backend's communicators need a CudaDevice");
  return *d;
}

}  // namespace

bool built_with_cuda() {
  return true;
}

int visible_devices() {
  return CudaDevice::visible_devices();
}

std::unique_ptr<Device> make_device_for_rank() {
  const int gpus = CudaDevice::visible_devices();
  const auto [node_rank, node_ranks] = node_rank_and_size();
  const int ordinal = gpu_of_node_rank(node_rank, gpus);
  return std::make_unique<CudaDevice>(ordinal, ranks_on_gpu(node_ranks, gpus, ordinal));
}

std::unique_ptr<Comm> make_world(Device& device, const std::string& comm,
                                 std::shared_ptr<CommCounters> counters,
                                 std::shared_ptr<TraceRecorder> trace) {
  CudaDevice& gpu = cuda_device(device);
  std::string chosen = comm;
  if (comm == "auto") {
    // Every node must have a GPU per rank; all ranks take the same decision.
    const int own_gpu = node_rank_and_size().second <= CudaDevice::visible_devices() ? 1 : 0;
    int everywhere = 0;
    MPI_Allreduce(&own_gpu, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    chosen = everywhere == 1 ? "nccl" : "mpi";
  }
  if (chosen == "nccl") {
    return wrap_transport(NcclComm::world(gpu), std::move(counters), std::move(trace));
  }
  if (chosen == "mpi") {
    return wrap_transport(DeviceStagedComm::world(std::make_shared<CudaStagingCopy>(gpu)),
                          std::move(counters), std::move(trace));
  }
  throw UsageError("unknown communicator '" + comm + "' (use nccl, mpi or auto)");
}

std::string gpu_name(Device& device) {
  return cuda_device(device).name();
}

double time_on_device(Device& device, const std::function<void()>& enqueue) {
  return cuda_device(device).time_on_stream(enqueue);
}

}  // namespace tplab::cuda
