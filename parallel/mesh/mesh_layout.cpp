#include "mesh/mesh_layout.hpp"

#include <fmt/format.h>

#include <array>

#include "core/error.hpp"

namespace tplab {

std::vector<int> MeshLayout::replica_ranks(int w) const {
  std::vector<int> ranks;
  const int first = w / scheme_ranks * scheme_ranks;
  for (int s = 0; s < scheme_ranks; ++s) ranks.push_back(first + s);
  return ranks;
}

std::vector<int> MeshLayout::dp_ranks(int w) const {
  std::vector<int> ranks;
  const int within = w % (stages * scheme_ranks);  // the stage and the scheme rank
  for (int r = 0; r < replicas; ++r) ranks.push_back(r * stages * scheme_ranks + within);
  return ranks;
}

std::vector<int> MeshLayout::pp_ranks(int w) const {
  std::vector<int> ranks;
  const int first = replica_of(w) * stages * scheme_ranks + scheme_rank_of(w);
  for (int s = 0; s < stages; ++s) ranks.push_back(first + s * scheme_ranks);
  return ranks;
}

MeshLayout mesh_of(const SchemeOptions& options, int world_size) {
  return {.replicas = options.dp,
          .scheme_ranks = world_size / (options.dp * options.pp),
          .stages = options.pp};
}

SchemeOptions replica_options(SchemeOptions options) {
  options.dp = 1;
  options.pp = 1;
  return options;
}

SchemeOptions replica_options_of_rank(const SchemeOptions& options, const MeshLayout& mesh,
                                      int world_rank, const BlockShape& global) {
  SchemeOptions replica = replica_options(options);
  replica.training.first_sequence += mesh.replica_of(world_rank) * (global.b / mesh.replicas);
  return replica;
}

std::string describe_mesh(const MeshLayout& mesh, const std::string& scheme_grid) {
  if (mesh.stages == 1) {
    return fmt::format("dp={} x {} (world rank = replica x {} + scheme rank)", mesh.replicas,
                       scheme_grid, mesh.scheme_ranks);
  }
  return fmt::format("dp={} x pp={} x {} (world rank = (replica x {} + stage) x {} + scheme rank)",
                     mesh.replicas, mesh.stages, scheme_grid, mesh.stages, mesh.scheme_ranks);
}

MeshComms split_mesh(Comm& world, const MeshLayout& mesh) {
  check(world.size() == mesh.world_size(),
        fmt::format("a mesh of {} x {} x {} ranks on a world of {}", mesh.replicas, mesh.stages,
                    mesh.scheme_ranks, world.size()));
  const int w = world.rank();
  const int stage = mesh.stage_of(w), replica = mesh.replica_of(w), tp = mesh.scheme_rank_of(w);
  MeshComms comms;
  // Colour: the coordinates that stay fixed across the group; key: the one that varies.
  comms.replica = world.split(replica * mesh.stages + stage, tp, "replica");
  comms.dp = world.split(stage * mesh.scheme_ranks + tp, replica, std::string(kDataParallelGroup));
  if (mesh.stages > 1) {
    comms.pp = world.split(replica * mesh.scheme_ranks + tp, stage, std::string(kPipelineGroup));
  }
  return comms;
}

BlockShape replica_shape(const BlockShape& global, int replicas) {
  check(replicas >= 1 && global.b % replicas == 0, "the batch splits over the replicas");
  BlockShape local = global;
  local.b = global.b / replicas;
  return local;
}

std::string batch_split_problem(const BlockShape& global, int replicas) {
  if (global.b % replicas == 0) return {};
  return fmt::format(
      "--dp {} gives each replica b/D of the global batch's sequences, and b = {} does not "
      "split into {} equal slices; use a batch that {} divides",
      replicas, global.b, replicas, replicas);
}

bool is_activation(std::string_view tensor) {
  static constexpr std::array<std::string_view, 4> kActivations = {"x", "y", "dx", "dy"};
  for (std::string_view a : kActivations) {
    if (a == tensor) return true;
  }
  return false;
}

std::vector<TensorPlacement> mesh_placements(
    const std::vector<TensorPlacement>& replica_placements, const MeshLayout& mesh,
    std::int64_t replica_tokens, const std::function<int(std::string_view)>& holding_stage) {
  if (mesh.replicas == 1 && mesh.stages == 1) return replica_placements;
  std::vector<TensorPlacement> out;
  for (const TensorPlacement& inner : replica_placements) {
    check(inner.blocks.size() == static_cast<std::size_t>(mesh.scheme_ranks),
          fmt::format("'{}' is placed on {} ranks, not a replica's {}", inner.tensor,
                      inner.blocks.size(), mesh.scheme_ranks));
    const bool split = is_activation(inner.tensor);
    TensorPlacement p{inner.tensor, inner.global, {}, {}};
    if (mesh.replicas == 1) {
      p.rule = inner.rule;
    } else if (split) {
      p.global[0] *= mesh.replicas;
      p.rule = fmt::format("Shard(0) over dp, then {}", inner.rule);
    } else {
      p.rule = fmt::format("{}, Replicate over dp", inner.rule);
    }
    const int stage = holding_stage ? holding_stage(inner.tensor) : -1;
    if (stage >= 0 && mesh.stages > 1) p.rule += fmt::format(", on stage {} of pp", stage);
    for (int w = 0; w < mesh.world_size(); ++w) {
      BlockRange b = inner.blocks[static_cast<std::size_t>(mesh.scheme_rank_of(w))];
      if (split) b.row0 += mesh.replica_of(w) * replica_tokens;
      if (stage >= 0 && mesh.stage_of(w) != stage) b = BlockRange{};  // not held here
      p.blocks.push_back(b);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tplab
