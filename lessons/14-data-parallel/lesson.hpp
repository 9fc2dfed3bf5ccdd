/// @file
/// Lesson 14: data parallelism around tensor parallelism. The world of p = D x t ranks as D
/// replicas of one 1D tensor-parallel group; the functions the exercise fills in.
#pragma once

#include <memory>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab::lessons::data_parallel {

/// One rank's place in the D x t mesh and its two groups. World rank r = dp_index x t +
/// tp_rank: Megatron's order, the TP rank varying fastest, so that a TP group is t consecutive
/// ranks (one node, when a node holds a multiple of t ranks).
struct MeshGroups {
  int dp_index = 0;  ///< which replica the rank belongs to, 0..D-1
  int tp_rank = 0;   ///< its place in its replica's TP group, 0..t-1
  /// The TP group ("tp"): the t ranks dp_index x t .. dp_index x t + t - 1, in tp_rank order.
  std::unique_ptr<Comm> tp;
  /// The DP group ("dp"): the D ranks tp_rank, tp_rank + t, ..., in dp_index order.
  std::unique_ptr<Comm> dp;
};

/// This rank's coordinates in the mesh of world.size() = D x t ranks, and its TP and DP groups,
/// each split from `world` (Comm::split: the colour is the coordinate that stays fixed within
/// the group, the key the one that varies). Collective over the world.
MeshGroups build_mesh_groups(Comm& world, int t);

/// The DP step of a training step: each gradient shard of `gradients` holds the gradient of
/// the mean loss over this replica's b/D sequences; replaced, in place, by its mean over the D
/// replicas (the sum over mesh.dp, divided by D), which is the gradient of the mean loss over
/// the whole global batch. One all-reduce per gradient, in name order on every rank.
void average_gradients(Device& device, MeshGroups& mesh, TensorMap& gradients);

/// The same average with every gradient shard in one flat bucket: the shards are copied into
/// one tensor of all their elements, the bucket is all-reduced over mesh.dp once and divided
/// by D, and each shard is copied back out of it (PyTorch DDP's and Megatron's gradient
/// buckets).
void average_gradients_bucketed(Device& device, MeshGroups& mesh, TensorMap& gradients);

}  // namespace tplab::lessons::data_parallel
