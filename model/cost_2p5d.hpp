/// @file
/// The cost model of 2.5D (Tesseract) tensor parallelism on d layers of q x q meshes.
#pragma once

#include "rank_cost.hpp"

namespace tplab::model {

/// One rank of 2.5D on d q^2 ranks (rank = j + q i + q^2 k; groups "row", "column", "depth").
RankCost cost_2p5d(const BlockShape& shape, int q, int d, Workload workload);

}  // namespace tplab::model
