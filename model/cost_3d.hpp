/// @file
/// The cost model of 3D tensor parallelism (Bian et al. 2021) on a q x q x q cube.
#pragma once

#include "gpt/gpt_shape.hpp"
#include "rank_cost.hpp"

namespace tplab::model {

/// One rank of 3D on q^3 ranks (rank = i + q (j + q k); groups "input", "weight", "output",
/// "input_weight", "output_weight"). `regather`: X~ and W~ are gathered again in backward
/// instead of being kept from forward.
RankCost cost_3d(const BlockShape& shape, int q, bool regather, Workload workload);

/// Elements the GPT of `shape` keeps for backward outside its blocks on one rank of 3D on q^3
/// ranks: the final LayerNorm's, the LM head's gathered input and weight (its input alone when
/// regathering), the logits and the loss's row statistics (derivation in cost_3d.cpp).
std::int64_t gpt_parts_kept_3d(const gpt::GptShape& shape, int q, bool regather);

}  // namespace tplab::model
