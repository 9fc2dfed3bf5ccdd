/// @file
/// GptLayout1D: the GPT's embedding, head and loss on Megatron's 1D layout, with or without
/// sequence parallelism.
#pragma once

#include "gpt/gpt_layout.hpp"

namespace tplab::gpt {

/// Activations are whole on every rank of tp ([m, h]), so the vocabulary is what 1D splits:
///
///   embedding  E [V/t, h], rows by rank: masked lookup, then all_reduce over tp of [m, h]
///              (forward); backward scatter-adds the replicated dx, no communication
///   final LN   whole rows, gamma and beta replicated: no communication
///   LM head    column-parallel W [h, V/t] and b [V/t] (vocabulary as output features): logits
///              [m, V/t] with no communication forward; backward all-reduces dX over tp
///              (Megatron's operator f)
///   loss       cross-entropy over tp: all_reduce max of [m], all_reduce sum of [m, 2]
///
/// With sequence parallelism ("1d-sp") the activations between the blocks are rank r's tokens
/// [m/t, h] (rows r m/t ..), and the collectives around them change as in the block:
///
///   embedding  the same masked lookup of all m tokens, then reduce_scatter over tp, so each
///              rank keeps its tokens' rows; backward all-gathers dx [m, h] first
///   final LN   on the token shard; gamma and beta replicated, so their gradients are
///              all-reduced over tp
///   LM head    all_gather over tp of the normalised x [m/t, h] -> [m, h] (operator f of
///              sequence parallelism), then the same column-parallel linear; backward
///              reduce-scatters dX [m, h] -> [m/t, h]
///   loss       unchanged: the logits [m, V/t] cover every token
///
/// Needs V divisible by t (and, with sequence parallelism, m divisible by t: the scheme's rule).
class GptLayout1D final : public GptLayout {
 public:
  /// `sequence_parallel`: the layout of "1d-sp" rather than "1d".
  explicit GptLayout1D(bool sequence_parallel) : sequence_parallel_(sequence_parallel) {}
  std::string why_not(int world_size, const GptShape& shape) const override;
  std::int64_t vocab_parts(int world_size, const GptShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const GptShape& shape) const override;
  GptParts make_parts(Comm& world, Device& device, const GptShape& shape,
                      const TensorMap& parameters) const override;

 private:
  bool sequence_parallel_;
};

}  // namespace tplab::gpt
