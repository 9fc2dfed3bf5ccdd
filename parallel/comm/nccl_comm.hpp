/// @file
/// NcclComm: Comm over NCCL for tensors on GPUs, one GPU per rank.
#pragma once

#include <memory>
#include <string>

#include "comm/comm.hpp"
#include "device/cuda/cuda_device.hpp"

namespace tplab {

/// Collectives with NCCL on device tensors (f64, f32, bf16). Bootstrapped over MPI (rank 0
/// makes the unique id and broadcasts it); groups come from ncclCommSplit. Every collective
/// runs on a communication stream of the GPU's own, after the work already queued on the
/// CudaDevice's stream: an event recorded there is waited for on the communication stream first.
///
/// One communication stream per GPU, shared by the world and every group split from it, not one
/// per group: NCCL's kernels wait on the GPU for their peers, and CUDA does not promise that
/// kernels on different streams run at the same time, so two groups' collectives on two streams
/// can each hold the GPU while waiting for the other on another rank, and hang (NCCL User
/// Guide, "Using multiple NCCL communicators concurrently"). On one stream a GPU runs its
/// collectives in the order its rank issued them, and every rank of a scheme issues its groups'
/// collectives in the same program order, so none waits for a collective queued behind it.
/// The price: collectives of different groups (a 2D row broadcast and a column broadcast) do
/// not overlap each other; each still overlaps the computation on the CudaDevice's stream.
///
/// A blocking collective is enqueued between two CUDA events, and the CudaDevice's stream is
/// made to wait for the second: stream-ordered, so the host does not wait for the transfer and
/// goes on queueing kernels, which run once the result has arrived. The two events go to the
/// counters (DeviceInterval), which read the time between them, the transfer alone, when the
/// counters are read. A started collective records a completion event instead, and its wait()
/// makes the device's stream wait for that event. Its counted `seconds` are then the host's
/// time from starting it to that wait, and its `exposed_seconds` the host's time in the two
/// calls (microseconds): neither times the transfer, which could only be read by blocking the
/// host. On a GPU, what overlap hides shows in the step time, not in `exposed_seconds`. Host
/// tensors (the verification harness gathers its findings in host memory) go over MPI on the
/// same ranks, started ones with MPI's non-blocking collectives.
/// send and recv are ncclSend and ncclRecv, queued, timed and started as the collectives are
/// (this path compiles but has not yet run on a GPU). Each is one NCCL call, not grouped with
/// others (ncclGroupStart, ncclGroupEnd), and NCCL's sends and receives hold the GPU until the
/// peer's matching call runs: on the one communication stream, two ranks that both send to the
/// other before they receive wait for each other for ever, started or not; one of them must
/// receive first, as with blocking MPI.
/// NCCL cannot put two ranks on one GPU: world() refuses that, naming the ranks, before any
/// collective. A transport: it counts nothing itself (wrap_transport() wraps it for use).
class NcclComm final : public Comm {
 public:
  /// Every rank of MPI_COMM_WORLD, each on its own `device`, as the group "world". Collective
  /// over MPI_COMM_WORLD; throws UsageError on every rank when two ranks share a GPU.
  static std::unique_ptr<NcclComm> world(CudaDevice& device);
  ~NcclComm() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string transport() const override { return "nccl"; }
  std::vector<int> world_ranks() const override { return host_->world_ranks(); }
  void barrier() override;
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;

  /// The NCCL communicator, its streams and events (defined in nccl_comm.cu).
  struct Handles;

  /// Enqueues `call` on the communication stream between two timing events and orders the
  /// CudaDevice's stream after it; returns the interval between the events. Host tensors go
  /// over MPI and return null.
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  /// Enqueues `call` on the communication stream; wait() orders the CudaDevice's stream after it.
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;
  /// A device tensor's element is copied on the CudaDevice's stream, after the collectives
  /// (a started one included, once its wait() ordered that stream after it).
  void write_first_element(Tensor& t, std::span<const std::byte> value) override;

 private:
  NcclComm(std::unique_ptr<Handles> handles, std::unique_ptr<Comm> host, std::string group);

  std::unique_ptr<Handles> handles_;
  /// MpiComm over the same ranks, for host tensors.
  std::unique_ptr<Comm> host_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace tplab
