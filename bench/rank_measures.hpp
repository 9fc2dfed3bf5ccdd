/// @file
/// What a timed step reads off its ranks: the slowest rank's value, and the bytes that crossed a
/// rank's links.
#pragma once

#include "comm/comm.hpp"
#include "comm/comm_counters.hpp"

namespace tplab::bench {

/// The largest of every rank's `value` (the slowest rank's, for a time). Collective.
double max_over_ranks(Comm& world, double value);

/// Bytes that crossed this rank's links in the counted calls (bus elements x size).
double bus_bytes_of(const CommCounters& counters);

}  // namespace tplab::bench
