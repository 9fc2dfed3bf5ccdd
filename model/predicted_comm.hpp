/// @file
/// PredictedComm: the collectives the cost model predicts for one rank, phase by phase.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "comm/collective.hpp"

namespace tplab::model {

/// The model's total for one kind of collective on one group in one phase, in the terms
/// CommCounters records it: the number of calls, and the logical size N summed over the calls
/// (nccl-tests' N: the full result of an all-gather, the full input of a reduce-scatter).
struct PredictedCollective {
  /// The collective.
  Collective collective = Collective::all_reduce;
  /// The reduction where the collective reduces; sum for the others (as CollectiveCount).
  ReduceOp op = ReduceOp::sum;
  /// The root, a rank of the group, where the collective has one (a send's or recv's peer);
  /// kNoRoot for the others.
  int root = kNoRoot;
  std::string group;  ///< the group's name, as the scheme's grid calls it ("tp", "row", ...)
  /// Ranks in the group.
  int group_size = 0;
  /// Calls in the phase.
  std::int64_t calls = 0;
  /// N, summed over the calls.
  std::int64_t elements = 0;

  /// N x bus_factor: what crosses each rank's link in a ring algorithm.
  double bus_elements() const;
  /// The same collective, reduction, root, group and counts.
  bool operator==(const PredictedCollective&) const = default;
};

/// The collectives of one phase (forward or backward) of one rank.
class PhaseComm {
 public:
  /// Adds `calls` calls of `collective`, which has no root, on `group` that move `elements` in
  /// all, reducing with `op` where it reduces. A group of one rank moves nothing over a link
  /// and is left out, as Comm leaves it out of the counters.
  void add(Collective collective, const std::string& group, int group_size, std::int64_t calls,
           std::int64_t elements, ReduceOp op = ReduceOp::sum);
  /// The same for a rooted collective (broadcast, reduce: the latter sums) from `root`, the
  /// index in the group of the rank that sends or receives alone; for a send or recv, `root` is
  /// the peer, the rank sent to or received from.
  void add_rooted(Collective collective, const std::string& group, int group_size, int root,
                  std::int64_t calls, std::int64_t elements);
  /// Adds `row`'s calls and elements to the row of its collective, reduction, root and group.
  void add_row(const PredictedCollective& row);
  /// Ordered by group, collective, reduction, then root (the order of CommCounters::snapshot).
  std::vector<PredictedCollective> rows() const;
  /// N summed over every call of the phase.
  std::int64_t total_elements() const;
  /// N x bus factor summed over every call: what crosses each rank's link.
  double total_bus_elements() const;

 private:
  std::map<std::tuple<std::string, Collective, ReduceOp, int>, PredictedCollective> rows_;
};

/// The collectives one rank issues in one block's (or linear pair's) forward and backward.
struct CommPrediction {
  /// The collectives of forward and of backward.
  ///@{
  PhaseComm forward, backward;
  ///@}
  /// Forward and backward together, per collective and group.
  PhaseComm total() const;
};

}  // namespace tplab::model
