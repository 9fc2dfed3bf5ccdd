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
  std::string group;  ///< the group's name, as the scheme's grid calls it ("tp", "row", ...)
  /// Ranks in the group.
  int group_size = 0;
  /// Calls in the phase.
  std::int64_t calls = 0;
  /// N, summed over the calls.
  std::int64_t elements = 0;

  /// N x bus_factor: what crosses each rank's link in a ring algorithm.
  double bus_elements() const;
  /// The same collective, group and counts.
  bool operator==(const PredictedCollective&) const = default;
};

/// The collectives of one phase (forward or backward) of one rank.
class PhaseComm {
 public:
  /// Adds `calls` calls of `collective` on `group` that move `elements` in all. A group of one
  /// rank moves nothing over a link and is left out, as Comm leaves it out of the counters.
  void add(Collective collective, const std::string& group, int group_size, std::int64_t calls,
           std::int64_t elements);
  /// Ordered by group, then collective (the order of CommCounters::snapshot).
  std::vector<PredictedCollective> rows() const;
  /// N summed over every call of the phase.
  std::int64_t total_elements() const;
  /// N x bus factor summed over every call: what crosses each rank's link.
  double total_bus_elements() const;

 private:
  std::map<std::tuple<std::string, Collective>, PredictedCollective> rows_;
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
