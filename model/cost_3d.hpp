/// @file
/// The cost model of 3D tensor parallelism (Bian et al. 2021) on a q x q x q cube.
#pragma once

#include "rank_cost.hpp"

namespace tplab::model {

/// One rank of 3D on q^3 ranks (rank = i + q (j + q k); groups "input", "weight", "output",
/// "input_weight", "output_weight"). `regather`: X~ and W~ are gathered again in backward
/// instead of being kept from forward.
RankCost cost_3d(const BlockShape& shape, int q, bool regather, Workload workload);

}  // namespace tplab::model
