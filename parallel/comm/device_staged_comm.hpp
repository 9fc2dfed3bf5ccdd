/// @file
/// DeviceStagedComm: MPI collectives on device tensors, staged through host memory.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "comm/comm.hpp"
#include "comm/mpi_group.hpp"
#include "comm/staging_copy.hpp"

namespace tplab {

/// Collectives on device tensors with MPI: each copies its operands to the host (StagingCopy),
/// runs the MPI collective on host memory, and copies the result back. bf16 is widened to f32
/// on the host, so MPI sums it in f32 (one rounding back to bf16 at the end). Host f64 and f32
/// tensors go to MPI directly. Slower than NCCL, but it lets several ranks share one GPU, which
/// NCCL refuses: that is how the multi-rank schemes are verified on a machine with one GPU.
/// send and recv move a tensor's bytes as they are (bf16 too: nothing is summed): a device
/// tensor is copied to the host and sent, or received on the host and copied back; started ones
/// use MPI_Isend and MPI_Irecv, a receive copying back when it is waited for. The collectives
/// have no started form here (Comm::start runs them). A transport, wrapped for use like MpiComm
/// (wrap_transport()); its counted times include the staging copies.
class DeviceStagedComm final : public Comm {
 public:
  /// All ranks of MPI_COMM_WORLD as the group "world", staging with `staging`.
  static std::unique_ptr<DeviceStagedComm> world(std::shared_ptr<StagingCopy> staging);

  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  std::string transport() const override { return "mpi-staged"; }
  std::vector<int> world_ranks() const override { return mpi_.world_ranks(); }
  void barrier() override;
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;

  /// The MPI collective of `call`, its device tensors staged; timed by the host (returns null).
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  /// A send or recv started with MPI_Isend or MPI_Irecv; a collective runs blocking.
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;
  /// A device tensor goes through the staging copy: to the host, its first element
  /// overwritten, and back.
  void write_first_element(Tensor& t, std::span<const std::byte> value) override;

 private:
  /// A tensor's elements in host memory as MPI moves them: the tensor's own memory for host
  /// f64 and f32, else a staged copy (bf16 widened to f32).
  struct Staged {
    void* data = nullptr;                   ///< what MPI reads or writes
    MPI_Datatype type = MPI_DATATYPE_NULL;  ///< MPI_DOUBLE or MPI_FLOAT
    int count = 0;                          ///< elements
    std::vector<std::byte> buffer;  ///< the staged copy; empty when data is the tensor's own
  };

  DeviceStagedComm(MpiGroup mpi, std::string group, std::shared_ptr<StagingCopy> staging);
  /// `t` on the host; its values are copied only when `read` (an output needs room alone).
  Staged stage(const Tensor& t, bool read);
  /// Writes a staged result back into `t` (nothing to do when it was t's own memory).
  void unstage(Staged& staged, Tensor& t);
  void all_reduce_staged(Tensor& x, ReduceOp op);
  void all_gather_staged(const Tensor& shard, Tensor& full);
  void reduce_scatter_staged(const Tensor& full, Tensor& shard);
  void broadcast_staged(Tensor& x, int root);
  void reduce_staged(const Tensor& in, Tensor& out, int root);
  void send_staged(const Tensor& x, int peer);
  void recv_staged(Tensor& x, int peer);

  MpiGroup mpi_;
  std::shared_ptr<StagingCopy> staging_;
};

}  // namespace tplab
