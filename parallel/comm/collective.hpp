/// @file
/// The collectives tplab uses, and how much data each moves.
#pragma once

#include <cstdint>
#include <string_view>

namespace tplab {

/// The collectives a Comm offers (barrier moves no data and is not one of them).
enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce };

/// Reduction applied by all_reduce (reduce_scatter and reduce always sum).
enum class ReduceOp { sum, max };

/// "all_reduce", "all_gather", ...
std::string_view collective_name(Collective c);

/// The factor nccl-tests multiplies the algorithm bandwidth by to get the bus bandwidth: the
/// share of the logical size N that crosses each rank's link in a ring algorithm.
/// 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast/reduce.
double bus_factor(Collective c, int group_size);

}  // namespace tplab
