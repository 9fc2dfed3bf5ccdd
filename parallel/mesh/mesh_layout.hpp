/// @file
/// MeshLayout: the world as D data-parallel replicas of one tensor-parallel scheme.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "comm/comm.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/placement.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// The world of D x S x P ranks as a mesh with three named axes: `dp` outermost, then `pp` (the
/// pipeline's S stages), then the scheme's own P ranks (tp). The order is Megatron's and the
/// planner's tp-pp-dp: the ranks of one tensor-parallel group are consecutive, then the stages
/// of one replica, so
///
///     world rank = (replica x S + stage) x P + scheme rank,
///
/// and a tensor-parallel group stays inside a node whenever the ranks per node are a multiple of
/// P. Replica r takes sequences [r b/D, (r+1) b/D) of the global batch: tokens
/// [r m/D, (r+1) m/D). Without a pipeline (S = 1) this is replica x P + scheme rank.
struct MeshLayout {
  int replicas = 1;      ///< D, the size of every DP group
  int scheme_ranks = 1;  ///< P, the ranks of one stage of one replica (its scheme's world)
  int stages = 1;        ///< S, the pipeline's stages: the size of every PP group

  /// D x S x P.
  int world_size() const { return replicas * stages * scheme_ranks; }
  /// Which replica world rank `w` belongs to: its coordinate along dp.
  int replica_of(int w) const { return w / (stages * scheme_ranks); }
  /// Which pipeline stage `w` runs: its coordinate along pp.
  int stage_of(int w) const { return (w / scheme_ranks) % stages; }
  /// Its rank inside its tensor-parallel group: the rank the scheme sees.
  int scheme_rank_of(int w) const { return w % scheme_ranks; }
  /// The world ranks of w's tensor-parallel group (one stage of one replica), in scheme-rank
  /// order.
  std::vector<int> replica_ranks(int w) const;
  /// The world ranks of w's DP group: the same stage and scheme rank in every replica, in
  /// replica order.
  std::vector<int> dp_ranks(int w) const;
  /// The world ranks of w's PP group: the same replica and scheme rank at every stage, in stage
  /// order.
  std::vector<int> pp_ranks(int w) const;
};

/// The mesh a run of `options` forms on `world_size` ranks: options.dp replicas of options.pp
/// stages of world_size / (options.dp x options.pp) ranks each. Every part of tplab that meets
/// data or pipeline parallelism (the block's DataParallelScheme, the trainer's GPT, the cost
/// model, placements) asks it here.
MeshLayout mesh_of(const SchemeOptions& options, int world_size);

/// The options every tensor-parallel group of a run of `options` runs its scheme with: the
/// same, on one replica of one stage (dp = 1, pp = 1): the scheme never sees dp or pp.
SchemeOptions replica_options(SchemeOptions options);

/// The options of the replica world rank `world_rank` belongs to on `mesh`, for a global block
/// `global`: replica_options, and its blocks draw the whole batch's dropout masks from the
/// replica's first sequence on, as the single-device block draws them for the whole batch.
SchemeOptions replica_options_of_rank(const SchemeOptions& options, const MeshLayout& mesh,
                                      int world_rank, const BlockShape& global);

/// "dp=2 x t=2 (world rank = replica x 2 + scheme rank)", with stages "dp=2 x pp=2 x t=2 (world
/// rank = (replica x 2 + stage) x 2 + scheme rank)": the mesh in one line.
std::string describe_mesh(const MeshLayout& mesh, const std::string& scheme_grid);

/// The name of the data-parallel groups, as the counters and the cost model file their calls.
inline constexpr std::string_view kDataParallelGroup = "dp";

/// The name of the pipeline groups, as the counters and the cost model file their transfers.
inline constexpr std::string_view kPipelineGroup = "pp";

/// The communicators one rank needs on the mesh.
struct MeshComms {
  /// The rank's tensor-parallel group (one stage of one replica), as the group "replica": the
  /// world the scheme's grid splits its own groups from. Nothing is reduced on it directly.
  std::unique_ptr<Comm> replica;
  /// The ranks that hold the same shards in every replica, as the group "dp".
  std::unique_ptr<Comm> dp;
  /// The ranks of the rank's replica with its scheme rank, one per stage in stage order, as the
  /// group "pp": activations and their gradients pass between neighbours on it. Null without a
  /// pipeline.
  std::unique_ptr<Comm> pp;
};

/// Splits `world` (of mesh.world_size() ranks) into the rank's groups, each with one
/// Comm::split whose colour is the coordinates that stay fixed. Collective over `world`.
MeshComms split_mesh(Comm& world, const MeshLayout& mesh);

/// One replica's block: b/D of the global batch's sequences, the rest as `global`.
BlockShape replica_shape(const BlockShape& global, int replicas);

/// Empty when `global`'s batch splits into `replicas` equal slices; otherwise why not.
std::string batch_split_problem(const BlockShape& global, int replicas);

/// True for the tensors split by tokens across replicas: x, y and their gradients dx, dy.
bool is_activation(std::string_view tensor);

/// Where every tensor lives on the mesh's world, from where it lives on one replica's stage
/// (`replica_placements`, for P ranks): an activation (is_activation) holds the replica's rows
/// shifted by replica x `replica_tokens`, over the global tokens; any other tensor (a parameter,
/// a gradient) is the same block in every replica. With stages, `holding_stage` names the stage
/// that holds each tensor, and the ranks of the other stages hold an empty block of it (null:
/// every stage holds every tensor). With one replica and one stage, `replica_placements`.
std::vector<TensorPlacement> mesh_placements(
    const std::vector<TensorPlacement>& replica_placements, const MeshLayout& mesh,
    std::int64_t replica_tokens,
    const std::function<int(std::string_view)>& holding_stage = nullptr);

}  // namespace tplab
