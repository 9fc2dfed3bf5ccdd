/// @file
/// The data-parallel step: every gradient shard reduced over the ranks that hold it in every
/// replica.
#pragma once

#include <cstdint>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// What the replicas' gradients combine into.
enum class ReplicaReduction {
  /// Their sum: the gradient of a loss that sums over the global batch, each replica's loss
  /// summing over its own slice (verify's L = sum of y * dy).
  sum,
  /// Their mean: each replica's loss is the mean over its own b/D sequences, and the mean of D
  /// equal-sized means is the mean over the global batch (train's loss, as PyTorch DDP and
  /// Megatron-LM average).
  mean,
};

/// Reduces every gradient of `gradients` in place over `dp` (the rank's DP group), as
/// `buckets` says: one all-reduce per tensor, or every tensor copied into one flat buffer, in
/// the map's (name) order, reduced by one all-reduce and copied back. Each rank of a DP group
/// holds the same shards, so the buffers line up element by element. The tensors must be
/// handles onto the gradients the rank's optimizer reads. Collective over `dp`; nothing to do
/// when it has one rank.
void reduce_over_replicas(Comm& dp, Device& device, const TensorMap& gradients,
                          GradientBuckets buckets, ReplicaReduction reduction);

/// The elements of every gradient in `gradients`: what one rank's DP all-reduces move.
std::int64_t gradient_elements(const TensorMap& gradients);

}  // namespace tplab
