/// @file
/// The alpha-beta time of ring collectives (Hockney's model; Thakur, Rabenseifner and Gropp
/// 2005 for the ring algorithms; NCCL's ring for broadcast and reduce), and of point-to-point
/// transfers.
#pragma once

#include "hardware.hpp"
#include "predicted_comm.hpp"

namespace tplab::model {

/// Steps of one call on a ring of n ranks: all-reduce is a reduce-scatter then an all-gather,
/// 2(n-1) steps; all-gather and reduce-scatter n-1; broadcast and reduce are pipelined along
/// the ring, n-1 hops to fill the pipe; a send or recv is one hop, whatever n.
int ring_steps(Collective collective, int n);

/// The two terms of a collective's time.
struct CollectiveTime {
  double latency_s = 0;    ///< calls x steps x alpha
  double bandwidth_s = 0;  ///< N x bus factor x bytes per element / bandwidth, summed over calls
  /// The whole time: latency plus bandwidth term.
  double total_s() const { return latency_s + bandwidth_s; }
};

/// The time of `row` (all its calls) on a link with `rate`. Each step of a ring moves N/n
/// (all-reduce, all-gather, reduce-scatter) or one pipelined chunk (broadcast, reduce), so what
/// crosses each device's link is N x bus_factor, the nccl-tests bus volume; a send or recv of N
/// elements takes alpha + N x bytes per element / bandwidth.
CollectiveTime collective_time(const PredictedCollective& row, const LinkRate& rate,
                               int bytes_per_element);

}  // namespace tplab::model
