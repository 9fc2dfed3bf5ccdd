/// @file
/// CommCounters: what every collective of a rank moved, per collective and group.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "comm/collective.hpp"

namespace tplab {

/// The totals of one kind of collective on one group.
struct CollectiveCount {
  /// The collective.
  Collective collective = Collective::all_reduce;
  std::string group;  ///< the group's name, e.g. "tp", "row", "depth"
  /// Ranks in the group.
  int group_size = 0;
  /// Calls made.
  std::int64_t calls = 0;
  std::int64_t elements = 0;  ///< logical size N summed over calls (the full result, as nccl-tests)
  std::int64_t bytes = 0;     ///< the same in bytes
  double bus_elements = 0;    ///< N x bus_factor summed over calls: what crosses each rank's link
  double seconds = 0;         ///< wall time inside the collective
};

/// One rank's record of its collectives. All communicators of a rank share one, so a phase
/// (forward, backward) can be read and reset in one place.
class CommCounters {
 public:
  /// Adds one call of `collective` on `group` that moved `elements` (N, `bytes` in bytes) in
  /// `seconds`.
  void record(Collective collective, const std::string& group, int group_size,
              std::int64_t elements, std::int64_t bytes, double seconds);
  /// Totals, ordered by group then collective.
  std::vector<CollectiveCount> snapshot() const;
  /// Seconds inside every collective since the last reset.
  double total_seconds() const;
  /// Bytes (N) of every collective since the last reset.
  std::int64_t total_bytes() const;
  /// Forgets every count: the start of a new phase.
  void reset() { counts_.clear(); }

 private:
  // std::less<> finds an entry by (string_view, Collective) without copying the group's name
  // on every call.
  std::map<std::tuple<std::string, Collective>, CollectiveCount, std::less<>> counts_;
};

}  // namespace tplab
