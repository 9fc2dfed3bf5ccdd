/// @file
/// NcclComm: Comm over NCCL for tensors on GPUs, one GPU per rank.
#pragma once

#include <memory>
#include <string>

#include "comm/comm.hpp"
#include "device/cuda/cuda_device.hpp"

namespace tplab {

/// Collectives with NCCL on device tensors (f64, f32, bf16). Bootstrapped over MPI (rank 0
/// makes the unique id and broadcasts it); groups come from ncclCommSplit. Each collective is
/// enqueued on the CudaDevice's stream, after the kernels that produce its input, between two
/// CUDA events; the host then waits for the second, and the counters record the time between
/// them (the transfer alone, not the kernels queued before it). Host tensors (the verification
/// harness gathers its findings in host memory) go over MPI on the same ranks. NCCL cannot
/// put two ranks on one GPU: world() refuses that, naming the ranks, before any collective.
class NcclComm final : public Comm {
 public:
  /// Every rank of MPI_COMM_WORLD, each on its own `device`, as the group "world". Collective
  /// over MPI_COMM_WORLD; throws UsageError on every rank when two ranks share a GPU.
  static std::unique_ptr<NcclComm> world(CudaDevice& device,
                                         std::shared_ptr<CommCounters> counters);
  ~NcclComm() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string transport() const override { return "nccl"; }
  void barrier() override;
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;

  /// The NCCL communicator, its events and stream (defined in nccl_comm.cu).
  struct Handles;

 protected:
  void do_all_reduce(Tensor& x, ReduceOp op) override;
  void do_all_gather(const Tensor& shard, Tensor& full) override;
  void do_reduce_scatter(const Tensor& full, Tensor& shard) override;
  void do_broadcast(Tensor& x, int root) override;
  void do_reduce(const Tensor& in, Tensor& out, int root) override;
  double transport_seconds(double host_seconds) override;

 private:
  NcclComm(std::unique_ptr<Handles> handles, std::unique_ptr<Comm> host, std::string group,
           std::shared_ptr<CommCounters> counters);

  std::unique_ptr<Handles> handles_;
  /// MPI over the same ranks, for host tensors; it records into counters of its own, since
  /// this Comm records every call.
  std::unique_ptr<Comm> host_;
  int rank_ = 0;
  int size_ = 1;
  /// The device seconds of the last collective, or a negative value when it ran on the host.
  double device_seconds_ = -1;
};

}  // namespace tplab
