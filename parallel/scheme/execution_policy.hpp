/// @file
/// ExecutionPolicy: how a scheme's layers issue their collectives and what they keep, the same
/// for every scheme; and PendingTensor, a tensor whose collective may still be in flight.
#pragma once

#include "comm/comm.hpp"

namespace tplab {

/// The two choices that change how a block runs but not what it computes. Grids describe the
/// topology only; the policy travels beside them, from make_scheme to every layer.
///
/// Each collective method below decides "start it or block on it" for the collectives a layer
/// may overlap with its work: with `overlap` it starts the collective and returns its request, so
/// that the caller computes while the data moves; without, it runs the blocking collective and
/// returns a request that is already complete. Either way the caller writes one line and waits
/// where it needs the result, and the same collectives are counted alike. The other collectives
/// of a block always block, called on the Comm directly with the reason beside the call: most
/// have nothing to overlap with, since the very next step reads their result (a forward
/// all-gather before its product, a sum before the bias is added). The one collective a layer
/// starts itself is 3D's prefetch of the next linear's weight (Linear3D::prefetch_weight), and
/// only with `overlap`.
struct ExecutionPolicy {
  /// Start collectives early and wait only where their result is needed (see SchemeOptions).
  bool overlap = false;
  /// 3D: gather X~ and W~ again in backward instead of keeping them from forward.
  bool regather = false;

  /// x = sum over `group` of x; started with overlap, otherwise done on return.
  CommRequest all_reduce(Comm& group, Tensor& x) const;
  /// full = the shards of `group` stacked in rank order; started with overlap.
  CommRequest all_gather(Comm& group, const Tensor& shard, Tensor& full) const;
  /// shard = this rank's rows of the sum over `group` of full; started with overlap.
  CommRequest reduce_scatter(Comm& group, const Tensor& full, Tensor& shard) const;
  /// x = x of `root`, on every rank of `group`; started with overlap.
  CommRequest broadcast(Comm& group, Tensor& x, int root) const;
};

/// A tensor and the collective that fills it: read the tensor through wait(). A request that
/// is already complete (a blocking collective, or no collective at all) makes wait() free.
/// Build it with designated initialisers, naming what is set: `{.tensor = x}` for a result
/// that is already there (the members' default initialisers fill the rest).
struct PendingTensor {
  Tensor tensor{};  ///< the result, valid once arrival has completed
  /// The input of a started collective that reads it until it completes (a reduce-scatter's
  /// partial sums) and that nothing else may keep: held here, released by wait(). Declared
  /// before arrival, so that a request destroyed without wait() completes before it is freed.
  Tensor input{};
  CommRequest arrival{};  ///< complete at once unless the collective was started

  /// Completes the collective and returns its result.
  const Tensor& wait() {
    arrival.wait();
    input = Tensor();
    return tensor;
  }
};

}  // namespace tplab
