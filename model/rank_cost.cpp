/// @file
/// rank_cost: from a scheme's name and world size to its formulas (model/scheme_costs.cpp).
#include "rank_cost.hpp"

#include "data_parallel_cost.hpp"
#include "scheme_costs.hpp"

namespace tplab::model {

RankCost rank_cost(std::string_view scheme_name, const SchemeOptions& options, int world_size,
                   const BlockShape& shape, Workload workload) {
  const auto scheme = make_scheme(scheme_name, options);
  scheme->validate(world_size, shape);
  if (const auto* mesh = dynamic_cast<const DataParallelScheme*>(scheme.get()); mesh != nullptr) {
    SchemeOptions replica_options = options;
    replica_options.dp = 1;
    RankCost replica = rank_cost(scheme_name, replica_options, world_size / mesh->replicas(),
                                 replica_shape(shape, mesh->replicas()), workload);
    RankCost cost = with_data_parallel(std::move(replica), *mesh, world_size, shape, workload);
    cost.grid = scheme->describe_grid(world_size, shape);
    return cost;
  }
  RankCost cost =
      cost_model_of(scheme_name).rank_cost(*scheme, options, world_size, shape, workload);
  cost.grid = scheme->describe_grid(world_size, shape);
  return cost;
}

}  // namespace tplab::model
