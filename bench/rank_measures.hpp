/// @file
/// What a timed step reads off its ranks: the slowest rank's value, and the bytes and seconds a
/// rank's counters filed under a group.
#pragma once

#include <cstdint>
#include <string_view>

#include "comm/comm.hpp"
#include "comm/comm_counters.hpp"

namespace tplab::bench {

/// The largest of every rank's `value` (the slowest rank's, for a time). Collective.
double max_over_ranks(Comm& world, double value);

/// Bytes that crossed this rank's links in the counted calls (bus elements x size).
double bus_bytes_of(const CommCounters& counters);

/// The seconds and logical bytes of the counted calls on one group.
struct GroupShare {
  double seconds = 0;          ///< from each call's start to its completion
  double exposed_seconds = 0;  ///< of which the caller was blocked (CollectiveCount's)
  std::int64_t bytes = 0;
};

/// What `counters` filed under the groups named `group` ("dp", "pp").
GroupShare group_share(const CommCounters& counters, std::string_view group);

}  // namespace tplab::bench
