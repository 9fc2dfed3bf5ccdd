#include "data_parallel_cost.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tplab::model {
namespace {

/// The elements of every parameter shard `scheme_rank` holds in one replica: its gradients'.
std::int64_t shard_elements(const std::vector<TensorPlacement>& placements, int scheme_rank) {
  std::int64_t n = 0;
  for (const TensorPlacement& p : placements) {
    if (!is_parameter(p.tensor)) continue;
    const BlockRange& b = p.blocks.at(static_cast<std::size_t>(scheme_rank));
    n += b.rows * b.cols;
  }
  return n;
}

std::int64_t parameter_count(Workload workload) {
  return workload == Workload::block ? static_cast<std::int64_t>(kBlockParameters.size())
                                     : static_cast<std::int64_t>(kLinearPairParameters.size());
}

/// The replica's groups, once per replica: a colour stays a colour within its replica.
std::vector<GroupLayout> replicated_groups(const std::vector<GroupLayout>& groups,
                                           const MeshLayout& mesh) {
  std::vector<GroupLayout> out;
  for (const GroupLayout& g : groups) {
    int colours = 0;
    for (int s = 0; s < mesh.scheme_ranks; ++s) colours = std::max(colours, g.color(s) + 1);
    out.push_back({g.name, g.size, [color = g.color, colours, mesh](int w) {
                     return mesh.replica_of(w) * colours + color(mesh.scheme_rank_of(w));
                   }});
  }
  return out;
}

}  // namespace

RankCost with_data_parallel(RankCost replica,
                            const std::vector<TensorPlacement>& replica_placements,
                            const MeshLayout& mesh, GradientBuckets buckets, Workload workload) {
  const std::int64_t elements = shard_elements(replica_placements, 0);
  for (int s = 1; s < mesh.scheme_ranks; ++s) {
    check(shard_elements(replica_placements, s) == elements,
          "the ranks of a replica hold parameter shards of different sizes");
  }
  const std::int64_t calls = buckets == GradientBuckets::flat ? 1 : parameter_count(workload);
  replica.comm.backward.add(Collective::all_reduce, std::string(kDataParallelGroup), mesh.replicas,
                            calls, elements);

  RankCost cost = std::move(replica);
  cost.groups = replicated_groups(cost.groups, mesh);
  cost.groups.push_back({std::string(kDataParallelGroup), mesh.replicas,
                         [mesh](int w) { return mesh.scheme_rank_of(w); }});
  if (!cost.activation_elements_by_rank.empty()) {
    std::vector<std::int64_t> by_rank;
    for (int w = 0; w < mesh.world_size(); ++w) {
      by_rank.push_back(
          cost.activation_elements_by_rank.at(static_cast<std::size_t>(mesh.scheme_rank_of(w))));
    }
    cost.activation_elements_by_rank = std::move(by_rank);
  }
  return cost;
}

}  // namespace tplab::model
