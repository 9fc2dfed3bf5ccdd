/// @file
/// GptLayout1D: the GPT's embedding, head and loss on Megatron's 1D layout.
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
/// Needs V divisible by t.
class GptLayout1D final : public GptLayout {
 public:
  std::string why_not(int world_size, const GptShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const GptShape& shape) const override;
  GptParts make_parts(Comm& world, Device& device, const GptShape& shape,
                      const TensorMap& parameters) const override;
};

}  // namespace tplab::gpt
