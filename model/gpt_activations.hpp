/// @file
/// What one rank of the GPT keeps from forward for backward, predicted: its blocks' and the
/// parts' around them.
#pragma once

#include <cstdint>
#include <string_view>

#include "gpt/gpt_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::model {

/// The elements each rank keeps for backward around the blocks when scheme `scheme` (built with
/// `options`) runs the GPT of `shape` on `world_size` ranks: what the final LayerNorm, the LM
/// head and the loss keep (SchemeCostModel::gpt_parts_kept), the same on every rank.
std::int64_t gpt_parts_kept_elements(std::string_view scheme, const SchemeOptions& options,
                                     int world_size, const gpt::GptShape& shape);

/// The elements rank `rank` of one model replica's pipeline stage `stage` keeps for backward
/// for one micro-batch when scheme `scheme` (a registry name, built with `options`,
/// options.dp = 1) runs the GPT of `shape` (its padded vocabulary, one micro-batch's sequences)
/// on `world_size` ranks:
///   L/S x what its block keeps under options.training.recompute (rank_cost), and on the last
///   stage what the final LayerNorm, the LM head and the loss keep
///   (SchemeCostModel::gpt_parts_kept).
/// Multiplied by the dtype's size and the micro-batches in flight at once, it is what a
/// training step measures (pipeline::StageStepRecord::kept_bytes).
std::int64_t gpt_activation_elements(std::string_view scheme, const SchemeOptions& options,
                                     int world_size, const gpt::GptShape& shape, int rank,
                                     const gpt::GptStage& stage = {});

}  // namespace tplab::model
