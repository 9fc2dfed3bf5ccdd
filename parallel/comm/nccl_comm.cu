#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/fault_injection.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/nccl_comm.hpp"
#include "core/error.hpp"
#include "device/cuda/cuda_status.cuh"
#include "device/cuda/launch_sync.hpp"

namespace tplab {

/// A CUDA stream shared by the communicators of one GPU; the last owner finishes and destroys it.
using SharedStream = std::shared_ptr<std::remove_pointer_t<cudaStream_t>>;

struct NcclComm::Handles {
  // Declared first, so it is let go of last: the communicator is destroyed while it exists.
  SharedStream comm_stream;
  ncclComm_t comm = nullptr;
  cudaStream_t compute = nullptr;  // the CudaDevice's stream, owned by the CudaDevice
  bool sync_after_launch = false;  // TPLAB_CUDA_SYNC=1: wait for every started collective
  // ready: recorded on the compute stream before each collective; start and stop: around a
  // blocking collective on the communication stream.
  cudaEvent_t ready = nullptr, start = nullptr, stop = nullptr;

  ~Handles() {
    // Errors here cannot be reported (a destructor); finish what was issued, then let go.
    if (comm_stream != nullptr) cudaStreamSynchronize(comm_stream.get());
    if (comm != nullptr) ncclCommDestroy(comm);
    if (ready != nullptr) cudaEventDestroy(ready);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }
};

namespace {

void check_nccl(ncclResult_t status, const char* call) {
  if (status == ncclSuccess) return;
  throw InternalError(std::string(call) + " failed: " + ncclGetErrorString(status));
}

ncclDataType_t nccl_type(const Tensor& t) {
  switch (t.dtype()) {
    case DType::f64:
      return ncclFloat64;
    case DType::f32:
      return ncclFloat32;
    case DType::bf16:
      return ncclBfloat16;
  }
  throw InternalError("NcclComm: unknown dtype");
}

/// True when every tensor is on the host, false when every one is on the device; a mix is a bug.
bool on_host(std::initializer_list<const Tensor*> tensors) {
  const DeviceKind first = (*tensors.begin())->device();
  for (const Tensor* t : tensors) {
    if (t->device() != first) {
      throw InternalError("NcclComm: a collective mixes host and device tensors");
    }
  }
  return first == DeviceKind::cpu;
}

/// A non-blocking stream on the current GPU: it does not wait for the legacy default stream.
SharedStream make_comm_stream() {
  cudaStream_t raw = nullptr;
  cuda::check_cuda(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking),
                   "cudaStreamCreateWithFlags");
  return SharedStream(raw, [](cudaStream_t stream) {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  });
}

std::unique_ptr<NcclComm::Handles> make_handles(cudaStream_t compute, SharedStream comm_stream,
                                                bool sync_after_launch) {
  auto h = std::make_unique<NcclComm::Handles>();
  h->compute = compute;
  h->comm_stream = std::move(comm_stream);
  h->sync_after_launch = sync_after_launch;
  cuda::check_cuda(cudaEventCreateWithFlags(&h->ready, cudaEventDisableTiming),
                   "cudaEventCreateWithFlags");
  cuda::check_cuda(cudaEventCreate(&h->start), "cudaEventCreate");
  cuda::check_cuda(cudaEventCreate(&h->stop), "cudaEventCreate");
  return h;
}

/// Refuses, identically on every rank, a world where two ranks use one GPU.
void require_one_gpu_per_rank(const CudaDevice& device, int rank, int size) {
  cudaDeviceProp properties{};
  cuda::check_cuda(cudaGetDeviceProperties(&properties, device.ordinal()),
                   "cudaGetDeviceProperties");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  // A GPU is known by its host and UUID.
  std::array<char, MPI_MAX_PROCESSOR_NAME + 16> mine{};
  std::copy(host, host + length, mine.begin());
  std::copy(properties.uuid.bytes, properties.uuid.bytes + 16,
            mine.begin() + MPI_MAX_PROCESSOR_NAME);
  std::vector<char> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                static_cast<int>(mine.size()), MPI_CHAR, MPI_COMM_WORLD);
  for (int a = 0; a < size; ++a) {
    for (int b = a + 1; b < size; ++b) {
      if (std::equal(all.begin() + a * mine.size(), all.begin() + (a + 1) * mine.size(),
                     all.begin() + b * mine.size())) {
        throw UsageError("NCCL needs one GPU per rank, but ranks " + std::to_string(a) + " and " +
                         std::to_string(b) + " share one (" + properties.name + " on " +
                         std::string(host, static_cast<std::size_t>(length)) + " for rank " +
                         std::to_string(rank) +
                         "); use --comm mpi to stage the collectives through host memory");
      }
    }
  }
}

}  // namespace

std::unique_ptr<NcclComm> NcclComm::world(CudaDevice& device,
                                          std::shared_ptr<CommCounters> counters) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  require_one_gpu_per_rank(device, rank, size);
  ncclUniqueId id{};
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  cuda::check_cuda(cudaSetDevice(device.ordinal()), "cudaSetDevice");
  auto handles = make_handles(static_cast<cudaStream_t>(device.stream()), make_comm_stream(),
                              cuda::sync_after_launch_requested());
  check_nccl(ncclCommInitRank(&handles->comm, size, id, rank), "ncclCommInitRank");
  // Host tensors over MPI, counted by this Comm alone.
  std::unique_ptr<Comm> host = MpiComm::world(std::make_shared<CommCounters>());
  return std::unique_ptr<NcclComm>(
      new NcclComm(std::move(handles), std::move(host), "world", std::move(counters)));
}

NcclComm::NcclComm(std::unique_ptr<Handles> handles, std::unique_ptr<Comm> host, std::string group,
                   std::shared_ptr<CommCounters> counters)
    : Comm(std::move(group), std::move(counters)),
      handles_(std::move(handles)),
      host_(std::move(host)) {
  check_nccl(ncclCommUserRank(handles_->comm, &rank_), "ncclCommUserRank");
  check_nccl(ncclCommCount(handles_->comm, &size_), "ncclCommCount");
  check(rank_ == host_->rank() && size_ == host_->size(),
        "NcclComm: the NCCL and MPI groups differ");
}

NcclComm::~NcclComm() = default;

void NcclComm::barrier() {
  cuda::check_cuda(cudaStreamSynchronize(handles_->compute), "cudaStreamSynchronize");
  cuda::check_cuda(cudaStreamSynchronize(handles_->comm_stream.get()), "cudaStreamSynchronize");
  host_->barrier();
}

std::unique_ptr<Comm> NcclComm::split(int color, int key, const std::string& group) {
  check(color >= 0, "NcclComm::split: colors are non-negative");
  auto handles =
      make_handles(handles_->compute, handles_->comm_stream, handles_->sync_after_launch);
  check_nccl(ncclCommSplit(handles_->comm, color, key, &handles->comm, nullptr), "ncclCommSplit");
  std::unique_ptr<Comm> host = host_->split(color, key, group);
  return std::unique_ptr<Comm>(
      new NcclComm(std::move(handles), std::move(host), group, shared_counters()));
}

double NcclComm::transport_seconds(double host_seconds) {
  return device_seconds_ < 0 ? host_seconds : device_seconds_;
}

namespace {

/// Makes the communication stream wait for the work queued so far on the compute stream, so
/// that the next collective reads what those kernels wrote (and writes nothing they still read).
void follow_compute(NcclComm::Handles& h) {
  cuda::check_cuda(cudaEventRecord(h.ready, h.compute), "cudaEventRecord");
  cuda::check_cuda(cudaStreamWaitEvent(h.comm_stream.get(), h.ready, 0), "cudaStreamWaitEvent");
}

/// Runs `call(stream)` (an NCCL collective) on the communication stream, after the compute
/// stream's work and between the two events, and waits for it; returns the seconds between
/// the events.
template <typename F>
double on_comm_stream(NcclComm::Handles& h, const char* name, F&& call) {
  cudaStream_t stream = h.comm_stream.get();
  follow_compute(h);
  cuda::check_cuda(cudaEventRecord(h.start, stream), "cudaEventRecord");
  check_nccl(call(stream), name);
  cuda::check_cuda(cudaEventRecord(h.stop, stream), "cudaEventRecord");
  cuda::check_cuda(cudaEventSynchronize(h.stop), name);
  float ms = 0;
  cuda::check_cuda(cudaEventElapsedTime(&ms, h.start, h.stop), "cudaEventElapsedTime");
  return ms * 1e-3;
}

/// A collective queued on the communication stream, with the event that marks its end and the
/// tensors it reads and writes. wait() makes the compute stream wait for the event; the host
/// goes on. The tensors are let go of only after that, and their memory returns to the
/// compute stream's allocator in that stream's order, so it is not reused before the
/// collective is done.
class NcclPending final : public PendingTransport {
 public:
  NcclPending(const Tensor& in, const Tensor& out, cudaStream_t compute)
      : in_(in), out_(out), compute_(compute) {
    cuda::check_cuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming),
                     "cudaEventCreateWithFlags");
  }
  NcclPending(const NcclPending&) = delete;
  NcclPending& operator=(const NcclPending&) = delete;
  ~NcclPending() override {
    // Dropped without wait() (the start failed after the launch): the compute stream still
    // waits, so the tensors' memory is not reused under the collective. An event never
    // recorded is complete.
    if (!waited_) cudaStreamWaitEvent(compute_, done_, 0);
    cudaEventDestroy(done_);
  }

  cudaEvent_t done() const { return done_; }
  void wait() override {
    cuda::check_cuda(cudaStreamWaitEvent(compute_, done_, 0), "cudaStreamWaitEvent");
    waited_ = true;
  }

 private:
  Tensor in_, out_;
  cudaStream_t compute_;
  cudaEvent_t done_ = nullptr;
  bool waited_ = false;
};

/// Queues `call(stream)` (an NCCL collective) on the communication stream after the compute
/// stream's work, and returns it pending.
template <typename F>
std::unique_ptr<PendingTransport> start_on_comm_stream(NcclComm::Handles& h, const Tensor& in,
                                                       const Tensor& out, const char* name,
                                                       F&& call) {
  auto pending = std::make_unique<NcclPending>(in, out, h.compute);
  cudaStream_t stream = h.comm_stream.get();
  follow_compute(h);
  check_nccl(call(stream), name);
  cuda::check_cuda(cudaEventRecord(pending->done(), stream), "cudaEventRecord");
  cuda::check_launch(name, stream, h.sync_after_launch);
  return pending;
}

/// A started collective on host tensors, over the host communicator.
class HostPending final : public PendingTransport {
 public:
  explicit HostPending(CommRequest request) : request_(std::move(request)) {}
  void wait() override { request_.wait(); }

 private:
  CommRequest request_;
};

}  // namespace

void NcclComm::do_all_reduce(Tensor& x, ReduceOp op) {
  device_seconds_ = -1;
  if (on_host({&x})) return host_->all_reduce(x, op);
  device_seconds_ = on_comm_stream(*handles_, "ncclAllReduce", [&](cudaStream_t stream) {
    return ncclAllReduce(x.data(), x.data(), static_cast<std::size_t>(x.numel()), nccl_type(x),
                         op == ReduceOp::sum ? ncclSum : ncclMax, handles_->comm, stream);
  });
}

void NcclComm::do_all_gather(const Tensor& shard, Tensor& full) {
  device_seconds_ = -1;
  if (on_host({&shard, &full})) return host_->all_gather(shard, full);
  device_seconds_ = on_comm_stream(*handles_, "ncclAllGather", [&](cudaStream_t stream) {
    return ncclAllGather(shard.data(), full.data(), static_cast<std::size_t>(shard.numel()),
                         nccl_type(shard), handles_->comm, stream);
  });
}

void NcclComm::do_reduce_scatter(const Tensor& full, Tensor& shard) {
  device_seconds_ = -1;
  if (on_host({&full, &shard})) return host_->reduce_scatter(full, shard);
  device_seconds_ = on_comm_stream(*handles_, "ncclReduceScatter", [&](cudaStream_t stream) {
    return ncclReduceScatter(full.data(), shard.data(), static_cast<std::size_t>(shard.numel()),
                             nccl_type(full), ncclSum, handles_->comm, stream);
  });
}

void NcclComm::do_broadcast(Tensor& x, int root) {
  device_seconds_ = -1;
  if (on_host({&x})) return host_->broadcast(x, root);
  device_seconds_ = on_comm_stream(*handles_, "ncclBroadcast", [&](cudaStream_t stream) {
    return ncclBroadcast(x.data(), x.data(), static_cast<std::size_t>(x.numel()), nccl_type(x),
                         root, handles_->comm, stream);
  });
}

void NcclComm::do_reduce(const Tensor& in, Tensor& out, int root) {
  device_seconds_ = -1;
  if (on_host({&in, &out})) return host_->reduce(in, out, root);
  // NCCL writes the receive buffer on the root alone.
  device_seconds_ = on_comm_stream(*handles_, "ncclReduce", [&](cudaStream_t stream) {
    return ncclReduce(in.data(), out.data(), static_cast<std::size_t>(in.numel()), nccl_type(in),
                      ncclSum, root, handles_->comm, stream);
  });
}

std::unique_ptr<PendingTransport> NcclComm::do_start_all_reduce(Tensor& x, ReduceOp op) {
  device_seconds_ = -1;
  if (on_host({&x})) return std::make_unique<HostPending>(host_->start_all_reduce(x, op));
  return start_on_comm_stream(*handles_, x, x, "ncclAllReduce", [&](cudaStream_t stream) {
    return ncclAllReduce(x.data(), x.data(), static_cast<std::size_t>(x.numel()), nccl_type(x),
                         op == ReduceOp::sum ? ncclSum : ncclMax, handles_->comm, stream);
  });
}

std::unique_ptr<PendingTransport> NcclComm::do_start_all_gather(const Tensor& shard, Tensor& full) {
  device_seconds_ = -1;
  if (on_host({&shard, &full})) {
    return std::make_unique<HostPending>(host_->start_all_gather(shard, full));
  }
  return start_on_comm_stream(*handles_, shard, full, "ncclAllGather", [&](cudaStream_t stream) {
    return ncclAllGather(shard.data(), full.data(), static_cast<std::size_t>(shard.numel()),
                         nccl_type(shard), handles_->comm, stream);
  });
}

std::unique_ptr<PendingTransport> NcclComm::do_start_reduce_scatter(const Tensor& full,
                                                                    Tensor& shard) {
  device_seconds_ = -1;
  if (on_host({&full, &shard})) {
    return std::make_unique<HostPending>(host_->start_reduce_scatter(full, shard));
  }
  return start_on_comm_stream(
      *handles_, full, shard, "ncclReduceScatter", [&](cudaStream_t stream) {
        return ncclReduceScatter(full.data(), shard.data(), static_cast<std::size_t>(shard.numel()),
                                 nccl_type(full), ncclSum, handles_->comm, stream);
      });
}

std::unique_ptr<PendingTransport> NcclComm::do_start_broadcast(Tensor& x, int root) {
  device_seconds_ = -1;
  if (on_host({&x})) return std::make_unique<HostPending>(host_->start_broadcast(x, root));
  return start_on_comm_stream(*handles_, x, x, "ncclBroadcast", [&](cudaStream_t stream) {
    return ncclBroadcast(x.data(), x.data(), static_cast<std::size_t>(x.numel()), nccl_type(x),
                         root, handles_->comm, stream);
  });
}

void NcclComm::write_nan(Tensor& result) {
  if (result.device() == DeviceKind::cpu) return Comm::write_nan(result);
  if (result.numel() == 0) return;
  const std::vector<std::byte> nan = quiet_nan_bytes(result.dtype());
  // From pageable memory: the copy returns once `nan` is staged; the wait keeps it simple.
  cuda::check_cuda(cudaMemcpyAsync(result.data(), nan.data(), nan.size(), cudaMemcpyHostToDevice,
                                   handles_->compute),
                   "cudaMemcpyAsync (TPLAB_INJECT_FAULT's NaN)");
  cuda::check_cuda(cudaStreamSynchronize(handles_->compute), "cudaStreamSynchronize");
}

}  // namespace tplab
