/// @file
/// The CUDA backend as the rest of tplab sees it: whether there is one, a device for this
/// rank, a communicator for its tensors, and device timing. Plain C++; in a build without CUDA
/// every call but built_with_cuda() throws NoDeviceError.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab::cuda {

/// True when this build has the CUDA device and NCCL (nvcc and NCCL found at configure time).
bool built_with_cuda();

/// The number of GPUs this process sees. Throws NoDeviceError, saying why, when there is none
/// or the build has no CUDA.
int visible_devices();

/// A CudaDevice for this MPI rank: GPU (rank among the ranks of its node) mod (GPUs visible),
/// so ranks spread over a node's GPUs and share them when there are more ranks than GPUs.
std::unique_ptr<Device> make_device_for_rank();

/// The world communicator for tensors of `device` (made by make_device_for_rank):
///   "nccl"  NcclComm, one GPU per rank (refused, on every rank, when ranks share a GPU);
///   "mpi"   DeviceStagedComm: MPI through host memory, for ranks that share a GPU;
///   "auto"  nccl when every rank has a GPU of its own, else mpi.
/// With a `trace`, every collective is put on the rank's timeline (wrap_transport). Collective
/// over MPI_COMM_WORLD.
std::unique_ptr<Comm> make_world(Device& device, const std::string& comm,
                                 std::shared_ptr<CommCounters> counters,
                                 std::shared_ptr<TraceRecorder> trace = nullptr);

/// The GPU's name as CUDA gives it ("NVIDIA H200"), of a device make_device_for_rank made.
std::string gpu_name(Device& device);

/// Seconds the GPU spends on the work `enqueue` issues to `device`, from CUDA events.
double time_on_device(Device& device, const std::function<void()>& enqueue);

}  // namespace tplab::cuda
