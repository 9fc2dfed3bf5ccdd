/// @file
/// MeshLayout: the world as D data-parallel replicas of one tensor-parallel scheme.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "comm/comm.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/placement.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// The world of D x P ranks as a mesh with two named axes: `dp` outermost, then the scheme's
/// own P ranks. The order is Megatron's: the ranks of one replica (one tensor-parallel group)
/// are consecutive, so
///
///     world rank = replica x P + scheme rank,
///
/// and a replica stays inside a node whenever the ranks per node are a multiple of P. Replica r
/// takes sequences [r b/D, (r+1) b/D) of the global batch: tokens [r m/D, (r+1) m/D).
struct MeshLayout {
  int replicas = 1;      ///< D, the size of every DP group
  int scheme_ranks = 1;  ///< P, the ranks of one replica (its scheme's world)

  /// D x P.
  int world_size() const { return replicas * scheme_ranks; }
  /// Which replica world rank `w` belongs to: its coordinate along dp.
  int replica_of(int w) const { return w / scheme_ranks; }
  /// Its rank inside its replica: the rank the scheme sees.
  int scheme_rank_of(int w) const { return w % scheme_ranks; }
  /// The world ranks of w's replica (its tensor-parallel group), in scheme-rank order.
  std::vector<int> replica_ranks(int w) const;
  /// The world ranks of w's DP group: the same scheme rank in every replica, in replica order.
  std::vector<int> dp_ranks(int w) const;
};

/// The mesh a run of `options` forms on `world_size` ranks: options.dp replicas of
/// world_size / options.dp ranks each. Every part of tplab that meets data parallelism (the
/// block's DataParallelScheme, the trainer's GPT, the cost model, placements) asks it here.
MeshLayout mesh_of(const SchemeOptions& options, int world_size);

/// The options every replica of a run of `options` runs its scheme with: the same, on one
/// replica (dp = 1): the replica never sees dp.
SchemeOptions replica_options(SchemeOptions options);

/// The options of the replica world rank `world_rank` belongs to on `mesh`, for a global block
/// `global`: replica_options, and its blocks draw the whole batch's dropout masks from the
/// replica's first sequence on, as the single-device block draws them for the whole batch.
SchemeOptions replica_options_of_rank(const SchemeOptions& options, const MeshLayout& mesh,
                                      int world_rank, const BlockShape& global);

/// "dp=2 x t=2 (world rank = replica x 2 + scheme rank)": the mesh in one line.
std::string describe_mesh(const MeshLayout& mesh, const std::string& scheme_grid);

/// The name of the data-parallel groups, as the counters and the cost model file their calls.
inline constexpr std::string_view kDataParallelGroup = "dp";

/// The two communicators one rank needs on the mesh.
struct MeshComms {
  /// The rank's replica, as the group "replica": the world the scheme's grid splits its own
  /// groups from. Nothing is reduced on it directly.
  std::unique_ptr<Comm> replica;
  /// The ranks that hold the same shards in every replica, as the group "dp".
  std::unique_ptr<Comm> dp;
};

/// Splits `world` (of mesh.world_size() ranks) into the rank's replica and DP group, each with
/// one Comm::split whose colour is the coordinate that stays fixed. Collective over `world`.
MeshComms split_mesh(Comm& world, const MeshLayout& mesh);

/// One replica's block: b/D of the global batch's sequences, the rest as `global`.
BlockShape replica_shape(const BlockShape& global, int replicas);

/// Empty when `global`'s batch splits into `replicas` equal slices; otherwise why not.
std::string batch_split_problem(const BlockShape& global, int replicas);

/// True for the tensors split by tokens across replicas: x, y and their gradients dx, dy.
bool is_activation(std::string_view tensor);

/// Where every tensor lives on the mesh's world, from where it lives on one replica
/// (`replica_placements`, for P ranks): an activation (is_activation) holds the replica's rows
/// shifted by replica x `replica_tokens`, over the global tokens; any other tensor (a parameter,
/// a gradient) is the same block in every replica. With one replica, `replica_placements`.
std::vector<TensorPlacement> mesh_placements(const std::vector<TensorPlacement>& replica_placements,
                                             const MeshLayout& mesh, std::int64_t replica_tokens);

}  // namespace tplab
