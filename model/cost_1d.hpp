/// @file
/// The cost model of 1D (Megatron) tensor parallelism over t ranks.
#pragma once

#include "gpt/gpt_shape.hpp"
#include "rank_cost.hpp"

namespace tplab::model {

/// One rank of 1D over t ranks (group "tp"): collectives, parameters and saved activations.
RankCost cost_1d(const BlockShape& shape, int t, Workload workload);

/// Elements the GPT of `shape` keeps for backward outside its blocks on one rank of 1D over t
/// ranks, with or without sequence parallelism: the final LayerNorm's, the LM head's input, the
/// logits and the loss's row statistics (derivation in cost_1d.cpp).
std::int64_t gpt_parts_kept_1d(const gpt::GptShape& shape, int t, bool sequence_parallel);

/// Korthikanti et al. 2022 ("Reducing Activation Recomputation", Table 2): the bytes of
/// activations one block keeps per rank under 1D tensor parallelism with 16-bit activations and
/// 1-byte dropout masks, a the heads:
///   none       s b h (10 + 24/t + 5 a s / (h t))   (eq. 2)
///   selective  s b h (10 + 24/t)
///   full       2 s b h                              (the block's input alone)
double korthikanti_activation_bytes_1d(const BlockShape& shape, int t, Recompute mode);

}  // namespace tplab::model
