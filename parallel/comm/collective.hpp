/// @file
/// The collectives tplab uses, its point-to-point transfers, and how much data each moves.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tplab {

/// The collectives a Comm offers, and its two point-to-point transfers, send and recv, which
/// travel through a chain of communicators as the collectives do (barrier moves no data and is
/// not one of them).
enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, send, recv };

/// Reduction applied by all_reduce (reduce_scatter and reduce always sum).
enum class ReduceOp { sum, max };

/// The root of a collective that has none (all_reduce, all_gather, reduce_scatter).
inline constexpr int kNoRoot = -1;

/// "all_reduce", "all_gather", ..., "send", "recv".
std::string_view collective_name(Collective c);
/// "sum", "max".
std::string_view reduce_op_name(ReduceOp op);

/// The collective with its reduction and root, where it has them, as reports name it:
/// "all_gather", "all_reduce(max)", "broadcast(root 1)", "reduce(sum, root 0)"; a transfer with
/// its peer: "send(to 1)", "recv(from 0)".
std::string collective_form(Collective c, ReduceOp op, int root);

/// Whether `c` combines the ranks' data with a ReduceOp: all_reduce, reduce_scatter, reduce.
bool reduces(Collective c);
/// Whether `c` has a root, a rank of the group that sends or receives alone: broadcast, reduce;
/// and send and recv, whose root is the peer, the rank sent to or received from.
bool rooted(Collective c);

/// The factor nccl-tests multiplies the algorithm bandwidth by to get the bus bandwidth: the
/// share of the logical size N that crosses each rank's link in a ring algorithm.
/// 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast/reduce
/// and for send and recv, whose N bytes cross one link once.
double bus_factor(Collective c, int group_size);

}  // namespace tplab
