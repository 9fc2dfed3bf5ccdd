/// @file
/// Comm: the collectives of one group of ranks, and its transfers between two of them, as layers
/// call them.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "comm/collective_call.hpp"
#include "comm/comm_counters.hpp"
#include "comm/comm_request.hpp"
#include "comm/device_interval.hpp"
#include "core/tensor.hpp"

namespace tplab {

/// The collectives of one group of ranks. Gathers and scatters work along the first extent in
/// rank order: rank r owns rows [r*n/p, (r+1)*n/p) of the full tensor. send and recv move one
/// tensor from one rank of the group to another (pipeline stages pass activations and their
/// gradients so); the messages from one rank to another arrive in the order they were sent.
///
/// A communicator is a chain: a transport that moves the data (MpiComm, DeviceStagedComm,
/// NcclComm) inside wrappers that each add one thing (TracingComm puts every collective on the
/// rank's timeline; CountingComm records every collective in the rank's CommCounters;
/// FaultInjectingComm fails one on purpose). wrap_transport() builds
/// the chain every program uses. The public calls below check their arguments once and hand a
/// CollectiveCall to run() or start(), which each link implements.
///
/// start_all_reduce and its siblings start a collective and return at once, so that a layer
/// can compute while the data moves; CommRequest::wait() completes it. A transport without
/// non-blocking collectives inherits a start() that runs the blocking one.
class Comm {
 public:
  /// `group`: the group's name in counters and messages ("world", "tp", "row", ...).
  explicit Comm(std::string group);
  virtual ~Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  /// This rank's index in the group, 0..size()-1.
  virtual int rank() const = 0;
  /// Number of ranks in the group.
  virtual int size() const = 0;
  /// How the data moves, for reports: "mpi", "nccl" or "mpi-staged" (MPI through host memory).
  virtual std::string transport() const = 0;
  /// The world rank of each of the group's ranks, in the group's order, for traces; empty when
  /// the transport cannot tell.
  virtual std::vector<int> world_ranks() const { return {}; }
  /// The group's name in counters and messages ("world", "tp", "row", ...).
  const std::string& group() const { return group_; }
  /// The rank's record of collectives, kept by the CountingComm in this chain and shared with
  /// every group split from it. A transport alone is not counted and throws UsageError.
  virtual CommCounters& counters();

  /// x = op over ranks of x, on every rank.
  void all_reduce(Tensor& x, ReduceOp op = ReduceOp::sum);
  /// full = concat over ranks of shard along the first extent.
  void all_gather(const Tensor& shard, Tensor& full);
  /// shard = rank's slice (first extent) of the sum over ranks of full.
  void reduce_scatter(const Tensor& full, Tensor& shard);
  /// x = x of root, on every rank.
  void broadcast(Tensor& x, int root);
  /// out = sum over ranks of in, on root; out is left unchanged on other ranks.
  void reduce(const Tensor& in, Tensor& out, int root);
  /// all_reduce, started: x holds the result once the request is waited for.
  CommRequest start_all_reduce(Tensor& x, ReduceOp op = ReduceOp::sum);
  /// all_gather, started: full holds the result once the request is waited for.
  CommRequest start_all_gather(const Tensor& shard, Tensor& full);
  /// reduce_scatter, started: shard holds the result once the request is waited for.
  CommRequest start_reduce_scatter(const Tensor& full, Tensor& shard);
  /// broadcast, started: x holds root's x once the request is waited for.
  CommRequest start_broadcast(Tensor& x, int root);
  /// Sends x to rank `peer` of this group (not this rank); returns once x may be changed again.
  void send(const Tensor& x, int peer);
  /// Receives into x from rank `peer` of this group: x's extents and dtype must be the sender's.
  void recv(Tensor& x, int peer);
  /// send, started: x must not change until the request is waited for.
  CommRequest start_send(const Tensor& x, int peer);
  /// recv, started: x holds what `peer` sent once the request is waited for.
  CommRequest start_recv(Tensor& x, int peer);
  /// Waits for every rank of the group.
  virtual void barrier() = 0;
  /// Sub-groups: ranks with the same color form one, ordered by key. Collective over this group;
  /// a wrapper wraps the new group alike.
  virtual std::unique_ptr<Comm> split(int color, int key, const std::string& group) = 0;

  /// Runs one collective to completion. A transport may return the interval it measured on a
  /// device's clock (NcclComm), to be read later; null means the host's clock around the call
  /// is its time.
  virtual std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) = 0;
  /// Starts one collective; null when it has already completed. By default it runs it.
  virtual std::unique_ptr<PendingTransport> start(const CollectiveCall& call);
  /// Writes `value` (one element's bytes) over the first element of `t`, in the memory this
  /// communicator moves, after the collectives already run: FaultInjectingComm's NaN. Host
  /// memory is written here; a transport of device memory writes through its device.
  virtual void write_first_element(Tensor& t, std::span<const std::byte> value);

 private:
  void check_gather(const Tensor& shard, const Tensor& full) const;
  void check_scatter(const Tensor& full, const Tensor& shard) const;
  void check_root(int root, const char* collective) const;
  void check_peer(int peer, const char* transfer) const;
  void check_reduce(const Tensor& in, const Tensor& out) const;

  std::string group_;
};

}  // namespace tplab
