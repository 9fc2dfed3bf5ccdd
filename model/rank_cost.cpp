/// @file
/// rank_cost: from a scheme's name and world size to its formulas (model/scheme_costs.cpp).
#include "rank_cost.hpp"

#include <algorithm>

#include "data_parallel_cost.hpp"
#include "registry/make_scheme.hpp"
#include "scheme_costs.hpp"

namespace tplab::model {

RankCost rank_cost(std::string_view scheme_name, const SchemeOptions& options, int world_size,
                   const BlockShape& shape, Workload workload) {
  const auto scheme = make_scheme(scheme_name, options);
  scheme->validate(world_size, shape);
  if (const MeshLayout mesh = mesh_of(options, world_size); mesh.replicas > 1) {
    const SchemeOptions replica = replica_options(options);
    const BlockShape replica_block = replica_shape(shape, mesh.replicas);
    RankCost cost = with_data_parallel(
        rank_cost(scheme_name, replica, mesh.scheme_ranks, replica_block, workload),
        make_scheme(scheme_name, replica)->placements(mesh.scheme_ranks, replica_block, workload),
        mesh, options.dp_buckets, workload);
    cost.grid = scheme->describe_grid(world_size, shape);
    return cost;
  }
  RankCost cost =
      cost_model_of(scheme_name).rank_cost(*scheme, options, world_size, shape, workload);
  apply_recompute(cost, *scheme, options, world_size, shape, workload);
  cost.grid = scheme->describe_grid(world_size, shape);
  return cost;
}

void apply_recompute(RankCost& cost, const Scheme& scheme, const SchemeOptions& options,
                     int world_size, const BlockShape& shape, Workload workload) {
  const Recompute mode = options.training.recompute;
  if (workload != Workload::block || mode == Recompute::none) return;
  std::vector<std::int64_t> kept(static_cast<std::size_t>(world_size));
  for (int r = 0; r < world_size; ++r)
    kept[static_cast<std::size_t>(r)] = cost.activation_elements_of(r);
  if (mode == Recompute::selective) {
    for (int r = 0; r < world_size; ++r) {
      kept[static_cast<std::size_t>(r)] -=
          cost.probability_elements_by_rank.empty()
              ? cost.probability_elements
              : cost.probability_elements_by_rank.at(static_cast<std::size_t>(r));
    }
  } else {
    const auto placements = scheme.placements(world_size, shape, workload);
    const TensorPlacement& x = find_placement(placements, "x");
    for (int r = 0; r < world_size; ++r) {
      const BlockRange& b = x.blocks.at(static_cast<std::size_t>(r));
      kept[static_cast<std::size_t>(r)] = b.rows * b.cols;
    }
    for (const PredictedCollective& row : cost.comm.forward.rows()) cost.comm.backward.add_row(row);
  }
  cost.activation_elements = *std::max_element(kept.begin(), kept.end());
  const bool alike =
      std::all_of(kept.begin(), kept.end(), [&](std::int64_t k) { return k == kept.front(); });
  cost.activation_elements_by_rank = alike ? std::vector<std::int64_t>{} : kept;
}

}  // namespace tplab::model
