/// @file
/// rank_cost: from a scheme's name and world size to its grid sizes and its formulas.
#include "rank_cost.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "cost_1d.hpp"
#include "cost_1d_sp.hpp"
#include "cost_2d.hpp"
#include "cost_2p5d.hpp"
#include "cost_3d.hpp"
#include "grid/grid_2d.hpp"
#include "grid/grid_3d.hpp"
#include "tp2p5d/scheme_2p5d.hpp"

namespace tplab::model {

RankCost rank_cost(std::string_view scheme_name, const SchemeOptions& options, int world_size,
                   const BlockShape& shape, Workload workload) {
  const auto scheme = make_scheme(scheme_name, options);
  scheme->validate(world_size, shape);
  RankCost cost;
  if (scheme_name == "1d") {
    cost = cost_1d(shape, world_size, workload);
  } else if (scheme_name == "1d-sp") {
    cost = cost_1d_sp(shape, world_size, workload);
  } else if (scheme_name == "2d") {
    cost = cost_2d(shape, square_root(world_size), workload);
  } else if (scheme_name == "2.5d") {
    const int d = tp2p5d::Scheme2p5D(options.depth).depth_for(world_size, shape);
    cost = cost_2p5d(shape, square_root(world_size / d), d, workload);
  } else if (scheme_name == "3d") {
    cost = cost_3d(shape, cube_side(world_size), options.regather, workload);
  } else {
    throw InternalError(fmt::format("the cost model has no formulas for scheme '{}'", scheme_name));
  }
  cost.grid = scheme->describe_grid(world_size, shape);
  return cost;
}

}  // namespace tplab::model
