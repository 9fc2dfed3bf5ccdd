/// @file
/// The size of the tiny GPT: its blocks' shape, its vocabulary and its depth in blocks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheme/block_shape.hpp"

namespace tplab::gpt {

/// A GPT of `layers` pre-LN blocks of shape `block` over a vocabulary of `vocab` tokens. Every
/// step trains on b sequences of s tokens (m = b*s), each predicting the token after it.
struct GptShape {
  BlockShape block;         ///< b, s, h, heads of every block
  std::int64_t vocab = 0;   ///< V: token ids 0..V-1
  std::int64_t layers = 0;  ///< L: number of blocks
};

/// Which part of the GPT one pipeline stage s of S holds: blocks [s L/S, (s+1) L/S), the
/// embedding on the first stage, the final LayerNorm, the LM head and the loss on the last.
/// The whole model is the one stage of one.
struct GptStage {
  int stage = 0;   ///< s, from 0
  int stages = 1;  ///< S, which divides L
  /// Holds the embedding: takes token ids.
  bool first() const { return stage == 0; }
  /// Holds the final LayerNorm, the head and the loss: ends in the loss.
  bool last() const { return stage == stages - 1; }
  /// The global index of its first block.
  std::int64_t first_layer(const GptShape& shape) const { return stage * layers(shape); }
  /// How many blocks it holds: L/S.
  std::int64_t layers(const GptShape& shape) const { return shape.layers / stages; }
};

/// The stage of `stages` that holds the model parameter `name` ("embedding": the first;
/// "lnf_gamma", "w_head", ...: the last; "layer5.wq": the one that holds block 5).
int stage_holding(std::string_view name, const GptShape& shape, int stages);

/// "b=4 s=16 h=32 heads=4 V=64 L=2".
std::string to_string(const GptShape& shape);

/// Empty for a usable shape; otherwise what is wrong with it (the block's shape_problem(), a
/// vocabulary below 2 or fewer than one block).
std::string gpt_shape_problem(const GptShape& shape);

/// The parameters outside the blocks: the token embedding E [V, h], the final LayerNorm's
/// gamma and beta [h], the LM head's weight [h, V] (stored [in, out]) and bias [V].
inline constexpr std::array<std::string_view, 5> kModelParameters = {
    "embedding", "lnf_gamma", "lnf_beta", "w_head", "b_head"};

/// Global extents of a model parameter (kModelParameters) or of "logits" [m, V]; block tensors
/// as global_extents() of block_shape.hpp.
Extents gpt_extents(std::string_view tensor, const GptShape& shape);

/// The name a block parameter has in the whole model: ("wq", 0) -> "layer0.wq".
std::string layer_parameter(std::string_view parameter, std::int64_t layer);

/// Every parameter of the GPT `shape` in the order values flow through it: "embedding", each
/// layer's block parameters ("layer0.ln1_gamma", ...), "lnf_gamma", "lnf_beta", "w_head",
/// "b_head".
std::vector<std::string> parameter_names(const GptShape& shape);

}  // namespace tplab::gpt
