/// @file
/// CommCounters: what every collective of a rank moved, per collective and group.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "comm/collective.hpp"
#include "comm/device_interval.hpp"

namespace tplab {

/// The totals of one kind of collective on one group: one reduction, from one root.
struct CollectiveCount {
  /// The collective.
  Collective collective = Collective::all_reduce;
  /// The reduction where the collective reduces (all_reduce, reduce_scatter, reduce); sum for
  /// the others.
  ReduceOp op = ReduceOp::sum;
  /// The root, a rank of the group, where the collective has one (broadcast, reduce), the peer
  /// of a send or recv; kNoRoot for the others.
  int root = kNoRoot;
  std::string group;  ///< the group's name, e.g. "tp", "row", "depth"
  /// Ranks in the group.
  int group_size = 0;
  /// Calls made.
  std::int64_t calls = 0;
  std::int64_t elements = 0;  ///< logical size N summed over calls (the full result, as nccl-tests)
  std::int64_t bytes = 0;     ///< the same in bytes
  double bus_elements = 0;    ///< N x bus_factor summed over calls: what crosses each rank's link
  /// Wall time from the start of each call to its completion. For a started collective
  /// (Comm::start_all_reduce, ...) this includes the work done while it was in flight.
  double seconds = 0;
  /// The part of `seconds` the caller was blocked: the whole call for a blocking collective,
  /// starting it and waiting for it for a started one. What overlap did not hide.
  double exposed_seconds = 0;
};

/// The totals of every call on the groups of one name, whatever the collective.
struct GroupTotals {
  std::int64_t calls = 0;      ///< calls made
  std::int64_t bytes = 0;      ///< logical bytes (N, as CollectiveCount's)
  double seconds = 0;          ///< from each call's start to its completion
  double exposed_seconds = 0;  ///< of which the caller was blocked
};

/// One call as the counters file it: all but its time.
struct CountedCall {
  /// The collective, its reduction and its root (CollectiveCount's op and root).
  ///@{
  Collective collective = Collective::all_reduce;
  ReduceOp op = ReduceOp::sum;
  int root = kNoRoot;
  ///@}
  std::string group;  ///< the group's name
  /// Ranks in the group.
  int group_size = 0;
  std::int64_t elements = 0;  ///< its logical size N
  std::int64_t bytes = 0;     ///< the same in bytes
};

/// A started collective's time in flight: from the moment its start returned to the moment the
/// caller began to wait for it, on the steady clock (seconds since its epoch). What the caller
/// did in between (its own computation) overlapped the collective.
struct InFlight {
  Collective collective = Collective::all_reduce;  ///< the collective
  std::string group;                               ///< the group's name
  double from = 0;                                 ///< its start returned
  double to = 0;                                   ///< its wait began
};

/// One rank's record of its collectives. All communicators of a rank share one, so a phase
/// (forward, backward) can be read and reset in one place. CountingComm fills it.
///
/// A collective timed on a device's clock (NcclComm) is counted at once, but its seconds are
/// read from the device only when the counters are read (snapshot(), total_seconds(),
/// total_exposed_seconds()), so that the host need not wait for every collective to time it.
class CommCounters {
 public:
  /// Adds one call, which took `seconds` from its start to its completion, `exposed_seconds`
  /// of which the caller was blocked.
  void record(const CountedCall& call, double seconds, double exposed_seconds);
  /// Adds one blocking call timed by `interval` on a device's clock: its seconds, exposed ones
  /// too, are the interval's, added when the counters are next read.
  void record(const CountedCall& call, std::unique_ptr<DeviceInterval> interval);
  /// Totals, ordered by group, collective, reduction, then root.
  std::vector<CollectiveCount> snapshot() const;
  /// Wall time of every call, start to completion.
  double total_seconds() const;
  /// Time the caller was blocked in collectives: equal to total_seconds() without overlap.
  double total_exposed_seconds() const;
  /// Logical bytes of every call.
  std::int64_t total_bytes() const;
  /// The totals of the calls on the groups named `group` ("dp", "pp").
  GroupTotals group_totals(std::string_view group) const;
  /// Files a started collective's time in flight (CountingComm does, at its wait).
  void record_in_flight(InFlight interval);
  /// Every started collective's time in flight since the last reset (the first kMaxInFlight),
  /// in the order they were waited for.
  const std::vector<InFlight>& in_flight() const { return in_flight_; }

  /// Forgets every call, its unread device intervals and times in flight too.
  void reset();

 private:
  /// A device interval not yet read, and the totals its seconds belong to.
  struct Unread {
    CollectiveCount* count;
    std::unique_ptr<DeviceInterval> interval;
  };
  /// Past this many unread intervals, recording one reads them all, so that a program that never
  /// reads its counters does not hold the device's events without end.
  static constexpr std::size_t kMaxUnread = 1024;
  /// The times in flight kept between resets: a program that never resets its counters (a
  /// long training run) does not grow them without end.
  static constexpr std::size_t kMaxInFlight = 4096;

  /// Counts one call in its totals (all but its seconds) and returns them.
  CollectiveCount& add_call(const CountedCall& call);
  /// Adds the seconds of every unread interval to its totals (waits for the device).
  void read_intervals() const;

  // std::less<> finds an entry by (string_view, Collective, ReduceOp, root) without copying the
  // group's name on every call. Both are mutable because reading the counters reads the device
  // intervals into them; std::map keeps every entry where it is, so an Unread's pointer stays
  // valid.
  mutable std::map<std::tuple<std::string, Collective, ReduceOp, int>, CollectiveCount, std::less<>>
      counts_;
  mutable std::vector<Unread> unread_;
  std::vector<InFlight> in_flight_;
};

}  // namespace tplab
