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

/// A transport: collectives with MPI on host tensors (f64 and f32); started collectives use
/// MPI's non-blocking ones (MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block,
/// MPI_Ibcast). send and recv move a tensor's bytes with MPI_Send and a matched receive
/// (MPI_Mprobe, MPI_Mrecv), started ones with MPI_Isend and MPI_Irecv (mpi_transfer.hpp). It
/// counts nothing itself: wrap_transport() wraps it for use.
/// Without an asynchronous progress thread, an MPI library may move most of the data only
/// inside MPI_Wait, so how much a started collective overlaps is the library's to decide.
class MpiComm final : public Comm {
 public:
  /// All ranks of MPI_COMM_WORLD as the group "world".
  static std::unique_ptr<MpiComm> world();

  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  std::string transport() const override { return "mpi"; }
  std::vector<int> world_ranks() const override { return mpi_.world_ranks(); }
  void barrier() override;
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  /// The MPI communicator, for raw MPI calls (benchmarks compare against them).
  MPI_Comm handle() const { return mpi_.handle(); }

  /// The blocking MPI collective of `call`; timed by the host (returns null).
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  /// The non-blocking MPI collective of `call`; reduce, which has none here, runs blocking.
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;

 private:
  MpiComm(MpiGroup mpi, std::string group);
  /// MPI_Irecv into x from `peer`, its size checked when it completes.
  std::unique_ptr<PendingTransport> start_receive(Tensor& x, int peer);
  /// MPI_Reduce, in place on the root when `out` is `in`.
  void reduce_on_root(const Tensor& in, Tensor& out, int root);

  MpiGroup mpi_;
};

}  // namespace tplab
