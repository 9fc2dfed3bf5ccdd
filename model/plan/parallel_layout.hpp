/// @file
/// ParallelLayout: how a cluster's devices are split into data-parallel replicas, pipeline
/// stages and tensor-parallel groups, and which devices form each group for a given rank order.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/names.hpp"
#include "rank_cost.hpp"

namespace tplab::model::plan {

/// Which axis varies fastest after TP as the world's ranks are numbered. Megatron-LM numbers
/// TP fastest always; megatron/core/parallel_state.py's RankGenerator takes the rest as an
/// order string: "tp-cp-ep-dp-pp" by default (DP next, PP slowest), "tp-cp-pp-ep-dp" with
/// --use-tp-pp-dp-mapping (PP next, DP slowest).
enum class RankOrder {
  tp_pp_dp,  ///< rank = tp_rank + tp (pp_rank + pp dp_rank): a pipeline hop is tp ranks away
  tp_dp_pp,  ///< rank = tp_rank + tp (dp_rank + dp pp_rank): a DP group is tp ranks apart
};

/// The names of the orders, as --rank-order takes them and the JSON records them.
inline constexpr std::array<Named<RankOrder>, 2> kRankOrderNames = {
    {{"tp-pp-dp", RankOrder::tp_pp_dp}, {"tp-dp-pp", RankOrder::tp_dp_pp}}};

/// "tp-pp-dp" or "tp-dp-pp".
constexpr std::string_view rank_order_name(RankOrder order) {
  return name_in(kRankOrderNames, order);
}

/// DP x TP x PP = the device count, with the order that numbers the ranks.
struct ParallelLayout {
  int dp = 1;                             ///< data-parallel replicas
  int tp = 1;                             ///< devices of one tensor-parallel group
  int pp = 1;                             ///< pipeline stages
  RankOrder order = RankOrder::tp_pp_dp;  ///< how world ranks map to (dp, pp, tp) ranks

  /// The devices the layout uses: dp x tp x pp.
  int devices() const { return dp * tp * pp; }
  /// "DP 8 x TP 4 x PP 4".
  std::string describe() const;
  /// The same degrees and order.
  bool operator==(const ParallelLayout&) const = default;
};

/// Every ordered (dp, tp, pp) whose product is `devices`, by dp, then tp ascending, each with
/// `order`: 36 for 128 = 2^7 (the ways to share seven factors of two among three degrees).
std::vector<ParallelLayout> factorisations(int devices, RankOrder order = RankOrder::tp_pp_dp);

/// The world rank of (dp_rank, pp_rank, tp_rank).
int world_rank(const ParallelLayout& layout, int dp_rank, int pp_rank, int tp_rank);

/// The tensor-parallel groups "tp": tp consecutive ranks each.
GroupLayout tensor_parallel_groups(const ParallelLayout& layout);
/// The pipelines "pp": ranks with equal tp_rank and dp_rank, one per stage.
GroupLayout pipeline_groups(const ParallelLayout& layout);
/// The data-parallel groups "dp": ranks with equal tp_rank and pp_rank, one per replica.
GroupLayout data_parallel_groups(const ParallelLayout& layout);

/// The groups `inner` (one kind of a TP scheme's grid groups on tp ranks, colored by the rank
/// within the TP group) as groups of the whole world: each TP group holds one copy of the grid.
GroupLayout within_tensor_parallel_groups(const ParallelLayout& layout, const GroupLayout& inner);

}  // namespace tplab::model::plan
