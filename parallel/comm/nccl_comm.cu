#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/mpi_comm.hpp"
#include "comm/nccl_comm.hpp"
#include "core/error.hpp"
#include "device/cuda/cuda_status.cuh"
#include "device/cuda/launch_sync.hpp"

namespace tplab {

/// A CUDA stream shared by the communicators of one GPU; the last owner finishes and destroys it.
using SharedStream = std::shared_ptr<std::remove_pointer_t<cudaStream_t>>;

namespace {

/// Timing events of one GPU, reused: a blocking collective takes two, and its DeviceInterval
/// gives them back once the counters have read it (or dropped it).
class TimingEvents {
 public:
  TimingEvents() = default;
  TimingEvents(const TimingEvents&) = delete;
  TimingEvents& operator=(const TimingEvents&) = delete;
  ~TimingEvents() {
    for (cudaEvent_t event : free_) cudaEventDestroy(event);
  }
  cudaEvent_t take() {
    if (free_.empty()) {
      cudaEvent_t event = nullptr;
      cuda::check_cuda(cudaEventCreate(&event), "cudaEventCreate");
      return event;
    }
    const cudaEvent_t event = free_.back();
    free_.pop_back();
    return event;
  }
  void give_back(cudaEvent_t event) { free_.push_back(event); }

 private:
  std::vector<cudaEvent_t> free_;
};

}  // namespace

struct NcclComm::Handles {
  // Declared first, so it is let go of last: the communicator is destroyed while it exists.
  SharedStream comm_stream;
  ncclComm_t comm = nullptr;
  cudaStream_t compute = nullptr;  // the CudaDevice's stream, owned by the CudaDevice
  bool sync_after_launch = false;  // TPLAB_CUDA_SYNC=1: wait for every collective
  // Recorded on the compute stream before each collective.
  cudaEvent_t ready = nullptr;
  // Shared by the world and every group split from it, and by the intervals not yet read.
  std::shared_ptr<TimingEvents> timing;

  ~Handles() {
    // Errors here cannot be reported (a destructor); finish what was issued, then let go.
    if (comm_stream != nullptr) cudaStreamSynchronize(comm_stream.get());
    if (comm != nullptr) ncclCommDestroy(comm);
    if (ready != nullptr) cudaEventDestroy(ready);
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

/// Handles on the GPU of `compute`; ncclCommInitRank or ncclCommSplit then fills in `comm`.
std::unique_ptr<NcclComm::Handles> make_handles(cudaStream_t compute, SharedStream comm_stream,
                                                std::shared_ptr<TimingEvents> timing,
                                                bool sync_after_launch) {
  auto h = std::make_unique<NcclComm::Handles>();
  h->compute = compute;
  h->comm_stream = std::move(comm_stream);
  h->timing = std::move(timing);
  h->sync_after_launch = sync_after_launch;
  cuda::check_cuda(cudaEventCreateWithFlags(&h->ready, cudaEventDisableTiming),
                   "cudaEventCreateWithFlags");
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

std::unique_ptr<NcclComm> NcclComm::world(CudaDevice& device) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  require_one_gpu_per_rank(device, rank, size);
  ncclUniqueId id{};
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  cuda::check_cuda(cudaSetDevice(device.ordinal()), "cudaSetDevice");
  auto handles =
      make_handles(static_cast<cudaStream_t>(device.stream()), make_comm_stream(),
                   std::make_shared<TimingEvents>(), cuda::sync_after_launch_requested());
  check_nccl(ncclCommInitRank(&handles->comm, size, id, rank), "ncclCommInitRank");
  return std::unique_ptr<NcclComm>(new NcclComm(std::move(handles), MpiComm::world(), "world"));
}

NcclComm::NcclComm(std::unique_ptr<Handles> handles, std::unique_ptr<Comm> host, std::string group)
    : Comm(std::move(group)), handles_(std::move(handles)), host_(std::move(host)) {
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
  auto handles = make_handles(handles_->compute, handles_->comm_stream, handles_->timing,
                              handles_->sync_after_launch);
  check_nccl(ncclCommSplit(handles_->comm, color, key, &handles->comm, nullptr), "ncclCommSplit");
  return std::unique_ptr<Comm>(
      new NcclComm(std::move(handles), host_->split(color, key, group), group));
}

namespace {

/// Makes the communication stream wait for the work queued so far on the compute stream, so
/// that the next collective reads what those kernels wrote (and writes nothing they still read).
void follow_compute(NcclComm::Handles& h) {
  cuda::check_cuda(cudaEventRecord(h.ready, h.compute), "cudaEventRecord");
  cuda::check_cuda(cudaStreamWaitEvent(h.comm_stream.get(), h.ready, 0), "cudaStreamWaitEvent");
}

/// The NCCL call of `call` on `stream`. NCCL writes reduce's receive buffer on the root alone;
/// send and recv move the elements of the one tensor.
ncclResult_t enqueue(const NcclComm::Handles& h, const CollectiveCall& call, cudaStream_t stream) {
  const void* in = call.in.data();
  void* out = call.out.data();
  const auto in_count = static_cast<std::size_t>(call.in.numel());
  const auto out_count = static_cast<std::size_t>(call.out.numel());
  const ncclDataType_t type = nccl_type(call.in);
  switch (call.collective) {
    case Collective::all_reduce:
      return ncclAllReduce(in, out, in_count, type, call.op == ReduceOp::sum ? ncclSum : ncclMax,
                           h.comm, stream);
    case Collective::all_gather:
      return ncclAllGather(in, out, in_count, type, h.comm, stream);
    case Collective::reduce_scatter:
      return ncclReduceScatter(in, out, out_count, type, ncclSum, h.comm, stream);
    case Collective::broadcast:
      return ncclBroadcast(in, out, in_count, type, call.root, h.comm, stream);
    case Collective::reduce:
      return ncclReduce(in, out, in_count, type, ncclSum, call.root, h.comm, stream);
    case Collective::send:
      return ncclSend(in, in_count, type, call.root, h.comm, stream);
    case Collective::recv:
      return ncclRecv(out, out_count, type, call.root, h.comm, stream);
  }
  return ncclInvalidArgument;
}

/// "ncclAllReduce", ...: what error messages name.
const char* nccl_name(Collective collective) {
  switch (collective) {
    case Collective::all_reduce:
      return "ncclAllReduce";
    case Collective::all_gather:
      return "ncclAllGather";
    case Collective::reduce_scatter:
      return "ncclReduceScatter";
    case Collective::broadcast:
      return "ncclBroadcast";
    case Collective::reduce:
      return "ncclReduce";
    case Collective::send:
      return "ncclSend";
    case Collective::recv:
      return "ncclRecv";
  }
  return "nccl";
}

/// Two events around a blocking collective on the communication stream. Reading the time
/// between them waits for the second; the events go back to the GPU's TimingEvents after.
class NcclInterval final : public DeviceInterval {
 public:
  explicit NcclInterval(std::shared_ptr<TimingEvents> timing)
      : timing_(std::move(timing)), start_(timing_->take()), stop_(timing_->take()) {}
  NcclInterval(const NcclInterval&) = delete;
  NcclInterval& operator=(const NcclInterval&) = delete;
  ~NcclInterval() override {
    timing_->give_back(start_);
    timing_->give_back(stop_);
  }

  cudaEvent_t start() const { return start_; }
  cudaEvent_t stop() const { return stop_; }
  double seconds() override {
    cuda::check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize (a collective's end)");
    float ms = 0;
    cuda::check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  std::shared_ptr<TimingEvents> timing_;
  cudaEvent_t start_, stop_;
};

/// Enqueues `call` on the communication stream, after the compute stream's work and between
/// two timing events, and makes the compute stream wait for its end: the host goes on.
std::unique_ptr<DeviceInterval> run_on_comm_stream(NcclComm::Handles& h,
                                                   const CollectiveCall& call) {
  const char* name = nccl_name(call.collective);
  cudaStream_t stream = h.comm_stream.get();
  follow_compute(h);
  auto interval = std::make_unique<NcclInterval>(h.timing);
  cuda::check_cuda(cudaEventRecord(interval->start(), stream), "cudaEventRecord");
  check_nccl(enqueue(h, call, stream), name);
  cuda::check_cuda(cudaEventRecord(interval->stop(), stream), "cudaEventRecord");
  cuda::check_cuda(cudaStreamWaitEvent(h.compute, interval->stop(), 0), "cudaStreamWaitEvent");
  cuda::check_launch(name, stream, h.sync_after_launch);
  return interval;
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

/// Enqueues `call` on the communication stream after the compute stream's work, and returns
/// it pending.
std::unique_ptr<PendingTransport> start_on_comm_stream(NcclComm::Handles& h,
                                                       const CollectiveCall& call) {
  const char* name = nccl_name(call.collective);
  auto pending = std::make_unique<NcclPending>(call.in, call.out, h.compute);
  cudaStream_t stream = h.comm_stream.get();
  follow_compute(h);
  check_nccl(enqueue(h, call, stream), name);
  cuda::check_cuda(cudaEventRecord(pending->done(), stream), "cudaEventRecord");
  cuda::check_launch(name, stream, h.sync_after_launch);
  return pending;
}

}  // namespace

std::unique_ptr<DeviceInterval> NcclComm::run(const CollectiveCall& call) {
  if (on_host({&call.in, &call.out})) return host_->run(call);
  return run_on_comm_stream(*handles_, call);
}

std::unique_ptr<PendingTransport> NcclComm::start(const CollectiveCall& call) {
  if (on_host({&call.in, &call.out})) return host_->start(call);
  return start_on_comm_stream(*handles_, call);
}

void NcclComm::write_first_element(Tensor& t, std::span<const std::byte> value) {
  if (t.device() == DeviceKind::cpu) return Comm::write_first_element(t, value);
  if (t.numel() == 0) return;
  // From pageable memory: the copy returns once `value` is staged; the wait keeps it simple.
  cuda::check_cuda(cudaMemcpyAsync(t.data(), value.data(), value.size(), cudaMemcpyHostToDevice,
                                   handles_->compute),
                   "cudaMemcpyAsync (one element)");
  cuda::check_cuda(cudaStreamSynchronize(handles_->compute), "cudaStreamSynchronize");
}

}  // namespace tplab
