/// @file
/// Comm: collectives over the ranks of one group, counted.
#pragma once

#include <memory>
#include <string>

#include "comm/collective.hpp"
#include "comm/comm_counters.hpp"
#include "comm/comm_request.hpp"
#include "core/tensor.hpp"

namespace tplab {

/// The collectives of one group of ranks. Public calls check their arguments, time the
/// transport, and record every call in the rank's CommCounters; implementations (MpiComm,
/// NcclComm) provide only the transport. Gathers and scatters work along the first extent in
/// rank order: rank r owns rows [r*n/p, (r+1)*n/p) of the full tensor.
///
/// A group of one rank moves nothing over a link: its collectives run but are not counted.
///
/// start_all_reduce and its siblings start a collective and return at once, so that a layer
/// can compute while the data moves; CommRequest::wait() completes it. Such a collective is
/// counted once, when it completes, with the time the caller spent blocked in it (starting it
/// and waiting for it) as its exposed time. An implementation without non-blocking transports
/// inherits ones that run the blocking transport and return a completed request.
class Comm {
 public:
  /// Who records a collective in the counters.
  enum class Recording {
    here,      ///< this Comm moves the data itself (MpiComm, NcclComm)
    by_inner,  ///< this Comm hands every collective to another Comm, which records it
  };

  /// A Comm that forwards to another (a test double that drops or reroutes calls) passes
  /// Recording::by_inner: the inner Comm then records exactly what crossed a link, once, and
  /// a call the wrapper drops leaves no trace.
  Comm(std::string group, std::shared_ptr<CommCounters> counters,
       Recording recording = Recording::here);
  virtual ~Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  /// This rank's index in the group, 0..size()-1.
  virtual int rank() const = 0;
  /// Number of ranks in the group.
  virtual int size() const = 0;
  /// How the data moves, for reports: "mpi", "nccl" or "mpi-staged" (MPI through host memory).
  virtual std::string transport() const = 0;
  /// The group's name in counters and messages ("world", "tp", "row", ...).
  const std::string& group() const { return group_; }
  /// The rank's record of collectives, shared with every group split from this one.
  CommCounters& counters() { return *counters_; }
  /// The same record, to hand to a new group.
  const std::shared_ptr<CommCounters>& shared_counters() const { return counters_; }

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
  /// Waits for every rank of the group.
  virtual void barrier() = 0;
  /// Sub-groups: ranks with the same color form one, ordered by key. Collective over this group.
  virtual std::unique_ptr<Comm> split(int color, int key, const std::string& group) = 0;

 protected:
  /// The transport of all_reduce, arguments already checked.
  virtual void do_all_reduce(Tensor& x, ReduceOp op) = 0;
  /// The transport of all_gather, arguments already checked.
  virtual void do_all_gather(const Tensor& shard, Tensor& full) = 0;
  /// The transport of reduce_scatter, arguments already checked.
  virtual void do_reduce_scatter(const Tensor& full, Tensor& shard) = 0;
  /// The transport of broadcast, arguments already checked.
  virtual void do_broadcast(Tensor& x, int root) = 0;
  /// The transport of reduce, arguments already checked.
  virtual void do_reduce(const Tensor& in, Tensor& out, int root) = 0;
  /// Starts the transport of all_reduce; null when it has already completed. By default it
  /// runs do_all_reduce and returns null.
  virtual std::unique_ptr<PendingTransport> do_start_all_reduce(Tensor& x, ReduceOp op);
  /// Starts the transport of all_gather; by default runs do_all_gather and returns null.
  virtual std::unique_ptr<PendingTransport> do_start_all_gather(const Tensor& shard, Tensor& full);
  /// Starts the transport of reduce_scatter; by default runs do_reduce_scatter and returns null.
  virtual std::unique_ptr<PendingTransport> do_start_reduce_scatter(const Tensor& full,
                                                                    Tensor& shard);
  /// Starts the transport of broadcast; by default runs do_broadcast and returns null.
  virtual std::unique_ptr<PendingTransport> do_start_broadcast(Tensor& x, int root);
  /// The seconds the counters record for the transport just run, given the host's wall time
  /// around it. A transport that runs on a device's stream (NcclComm) returns the time between
  /// device events recorded around it instead.
  virtual double transport_seconds(double host_seconds) { return host_seconds; }
  /// Writes a quiet NaN over the first element of a collective's result (TPLAB_INJECT_FAULT
  /// kind=nan, fault_injection.hpp), after the collective. Host memory is written here; a
  /// communicator of device memory writes through its device, and any other refuses a device
  /// tensor with UsageError rather than leave it unchanged in silence.
  virtual void write_nan(Tensor& result);

 private:
  template <typename F>
  void counted(Collective c, const Tensor& logical, Tensor& result, F&& transport);
  template <typename F>
  CommRequest started(Collective c, const Tensor& logical, const Tensor& result, F&& start);
  void check_gather(const Tensor& shard, const Tensor& full) const;
  void check_scatter(const Tensor& full, const Tensor& shard) const;
  void check_root(int root, const char* collective) const;

  std::string group_;
  std::shared_ptr<CommCounters> counters_;
  Recording recording_;
};

}  // namespace tplab
