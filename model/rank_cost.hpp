/// @file
/// RankCost: what the cost model predicts for one rank of a scheme, and the function that
/// picks the scheme's formulas.
///
/// Each scheme's formulas are one function, cost_<scheme>(shape, grid sizes, workload), in a
/// file of its own (cost_1d.cpp, cost_2d.cpp, cost_2p5d.cpp, cost_3d.cpp), with the derivation
/// beside the code. Adding a scheme is adding that function and its entry in scheme_costs.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "predicted_comm.hpp"
#include "scheme/scheme.hpp"

namespace tplab::model {

/// Which world ranks form the groups of one name: ranks with equal color(rank) form one group,
/// as they do in the scheme's grid (the color it gives Comm::split).
struct GroupLayout {
  /// The groups' name, as the grid calls them ("tp", "row", "depth", ...).
  std::string name;
  int size = 1;                   ///< ranks per group
  std::function<int(int)> color;  ///< world rank -> which group of this name it belongs to
};

/// The model of one rank: every rank of the schemes here does the same amount of work and
/// communication, so one rank stands for all (but for what 3D keeps, which may differ).
struct RankCost {
  std::string grid;                     ///< the grid, as Scheme::describe_grid says it
  CommPrediction comm;                  ///< one forward and one backward
  std::int64_t parameter_elements = 0;  ///< parameter elements this rank holds
  /// Elements forward keeps for backward on this rank: the tensors tplab's layers keep
  /// (LayerNorm's xhat and 1/std, each linear's input, q, k, v and the attention probabilities,
  /// the MLP's pre- and post-GELU activations). Temporaries that die within a layer are not
  /// counted. Where ranks keep different amounts (3D windows that cut sequences), the most.
  std::int64_t activation_elements = 0;
  /// What each world rank keeps, where ranks differ; empty where every rank keeps
  /// activation_elements.
  std::vector<std::int64_t> activation_elements_by_rank;
  /// What world rank `rank` keeps for backward.
  std::int64_t activation_elements_of(int rank) const {
    return activation_elements_by_rank.empty()
               ? activation_elements
               : activation_elements_by_rank.at(static_cast<std::size_t>(rank));
  }
  std::vector<GroupLayout> groups;  ///< the grid's groups of more than one rank
  /// Of activation_elements: the attention probabilities [b_local n_local, s, s] (or the
  /// window's, 3D), what Recompute::selective computes again instead of keeping; by rank where
  /// ranks differ.
  std::int64_t probability_elements = 0;
  std::vector<std::int64_t> probability_elements_by_rank;  ///< empty: every rank the same
};

/// `cost` with options.training.recompute applied, for `scheme` on `world_size` ranks:
///   selective: the probabilities are not kept (probability_elements less, rank by rank);
///   full:      each rank keeps only its block of x (the placements' "x"), and backward issues
///              forward's collectives again before its own.
/// The linear pair has no block to recompute: unchanged.
void apply_recompute(RankCost& cost, const Scheme& scheme, const SchemeOptions& options,
                     int world_size, const BlockShape& shape, Workload workload);

/// The model for `scheme` (a name of the registry: "1d", "2d", ...) on `world_size` ranks. Throws
/// UsageError, as Scheme::validate does, when the scheme cannot run the shape on that many ranks.
RankCost rank_cost(std::string_view scheme, const SchemeOptions& options, int world_size,
                   const BlockShape& shape, Workload workload);

}  // namespace tplab::model
