/// @file
/// The cost model's term for data parallelism: the DP group's all-reduce of every gradient shard.
#pragma once

#include <vector>

#include "mesh/mesh_layout.hpp"
#include "rank_cost.hpp"

namespace tplab::model {

/// One rank's cost on `mesh` (D replicas), from one replica's (`replica`, the replicated scheme's
/// cost on its ranks and the replica's b/D sequences, whose tensors lie where
/// `replica_placements` says), its gradients gathered as `buckets` says. Backward gains, on the
/// group "dp" of D ranks, one all-reduce of the rank's gradient shards (a flat bucket: 1 call of G
/// elements; per tensor: one call per parameter, G in all), G being the elements of the rank's
/// parameter shards; a ring moves 2(D-1)/D x G over each rank's link. Forward and what is kept for
/// backward are the replica's. The replica's groups repeat in every replica; "dp" joins them.
RankCost with_data_parallel(RankCost replica,
                            const std::vector<TensorPlacement>& replica_placements,
                            const MeshLayout& mesh, GradientBuckets buckets, Workload workload);

}  // namespace tplab::model
