/// @file
/// The cost model of 2D (Optimus, SUMMA) tensor parallelism on a q x q mesh.
#pragma once

#include "gpt/gpt_shape.hpp"
#include "rank_cost.hpp"

namespace tplab::model {

/// One rank of a q x q mesh whose ranks hold `batch` whole sequences each (2D: b/q; a depth
/// layer of 2.5D: b/(d q)): SUMMA's and LayerNorm's collectives on "row" and "column",
/// parameters and saved activations. Groups are left to the caller, whose rank layout differs.
RankCost mesh_cost(const BlockShape& shape, int q, std::int64_t batch, Workload workload);

/// Elements the GPT of `shape` keeps for backward outside its blocks on one rank of d layers of
/// q x q meshes (2D: d = 1): the final LayerNorm's, the LM head's input, the logits and the
/// loss's row statistics (derivation in cost_2d.cpp).
std::int64_t gpt_parts_kept_mesh(const gpt::GptShape& shape, int q, int d);

/// One rank of 2D on q x q ranks (rank = i q + j; groups "row" and "column").
RankCost cost_2d(const BlockShape& shape, int q, Workload workload);

}  // namespace tplab::model
