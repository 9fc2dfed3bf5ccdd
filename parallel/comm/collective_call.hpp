/// @file
/// CollectiveCall: one call of a collective, as it travels through a chain of communicators.
#pragma once

#include "comm/collective.hpp"
#include "core/tensor.hpp"

namespace tplab {

/// One collective call, its arguments already checked (Comm::all_reduce and its siblings build
/// it). A wrapper (CountingComm, FaultInjectingComm) looks at it and hands it on; the transport
/// at the end of the chain moves the data. All calls read `in` and write `out`; all_reduce,
/// broadcast, send and recv work in place, with `in` and `out` the same tensor (a send writes
/// nothing, as a broadcast writes nothing on its root).
struct CollectiveCall {
  Collective collective;  ///< which collective
  const Tensor& in;       ///< what it reads: x, shard (all_gather), full (reduce_scatter), in
  Tensor& out;            ///< what it writes: x, full (all_gather), shard (reduce_scatter), out
  ReduceOp op = ReduceOp::sum;  ///< all_reduce's reduction (the others always sum)
  int root = 0;                 ///< broadcast's and reduce's root; send's and recv's peer

  /// The tensor whose size the counters record, the logical size N of nccl-tests: the full
  /// tensor (all_gather's output, reduce_scatter's input), else the one tensor moved.
  const Tensor& logical() const { return collective == Collective::all_gather ? out : in; }
};

}  // namespace tplab
