/// @file
/// GptModel: the size of a whole GPT as `tplab model --plan` sees it (a stack of tplab's pre-LN
/// blocks between a token and position embedding and a tied LM head), and the batch it trains on.
#pragma once

#include <cstdint>

#include "scheme/block_shape.hpp"

namespace tplab::model::plan {

/// The model's shape. Notation as in docs/cost-model.md: L layers, h hidden, n heads, s tokens
/// per sequence, V the vocabulary.
struct GptModel {
  std::int64_t layers = 64;    ///< L, transformer blocks
  std::int64_t hidden = 8192;  ///< h
  std::int64_t heads = 64;     ///< n
  std::int64_t seq = 2048;     ///< s, tokens per sequence
  /// V; 51200 is GPT-2's 50257 padded to a multiple of 1024, as Megatron pads it so that it
  /// splits over any TP degree up to 1024.
  std::int64_t vocab = 51200;
};

/// What one optimizer step trains on.
struct TrainingBatch {
  std::int64_t global_batch = 512;  ///< B, sequences per step over the whole cluster
  std::int64_t micro_batch = 1;     ///< b, sequences per micro-batch on one model replica
};

/// One block of `model` on a micro-batch of `micro_batch` sequences: [b, s, h, n].
BlockShape block_shape_of(const GptModel& model, std::int64_t micro_batch);

/// Parameters of one block: 12 h^2 + 13 h (Q, K, V, O: 4 h^2 + 4 h; fc1, fc2: 8 h^2 + 5 h;
/// two LayerNorms: 4 h).
std::int64_t block_parameters(const GptModel& model);

/// Parameters of the whole model: L blocks, the token embedding V h (tied with the LM head),
/// the position embedding s h and the final LayerNorm 2 h.
std::int64_t model_parameters(const GptModel& model);

/// FLOPs of one step's forward and backward over the global batch, counted as
/// block_step_flops does: B/b micro-batches of L x 3 (24 b s h^2 + 4 b s^2 h) plus the LM
/// head's logits [b s, h] x [h, V], 3 x 2 b s h V. The model FLOPs of MFU: no recomputation.
double model_step_flops(const GptModel& model, const TrainingBatch& batch);

}  // namespace tplab::model::plan
