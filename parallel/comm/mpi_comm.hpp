/// @file
/// MpiComm: Comm over MPI for host memory.
#pragma once

#include <mpi.h>

#include "comm/comm.hpp"
#include "comm/mpi_group.hpp"

namespace tplab {

/// Starts MPI for the life of the object and ends it after. One per process, in main().
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

/// Collectives with MPI on host tensors (f64 and f32); started collectives use MPI's
/// non-blocking ones (MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block, MPI_Ibcast).
/// Without an asynchronous progress thread, an MPI library may move most of the data only
/// inside MPI_Wait, so how much a started collective overlaps is the library's to decide.
class MpiComm final : public Comm {
 public:
  /// All ranks of MPI_COMM_WORLD as the group "world".
  static std::unique_ptr<MpiComm> world(std::shared_ptr<CommCounters> counters);

  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  std::string transport() const override { return "mpi"; }
  void barrier() override;
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  /// The MPI communicator, for raw MPI calls (benchmarks compare against them).
  MPI_Comm handle() const { return mpi_.handle(); }

 protected:
  void do_all_reduce(Tensor& x, ReduceOp op) override;
  void do_all_gather(const Tensor& shard, Tensor& full) override;
  void do_reduce_scatter(const Tensor& full, Tensor& shard) override;
  void do_broadcast(Tensor& x, int root) override;
  void do_reduce(const Tensor& in, Tensor& out, int root) override;
  std::unique_ptr<PendingTransport> do_start_all_reduce(Tensor& x, ReduceOp op) override;
  std::unique_ptr<PendingTransport> do_start_all_gather(const Tensor& shard, Tensor& full) override;
  std::unique_ptr<PendingTransport> do_start_reduce_scatter(const Tensor& full,
                                                            Tensor& shard) override;
  std::unique_ptr<PendingTransport> do_start_broadcast(Tensor& x, int root) override;

 private:
  MpiComm(MpiGroup mpi, std::string group, std::shared_ptr<CommCounters> counters);

  MpiGroup mpi_;
};

}  // namespace tplab
