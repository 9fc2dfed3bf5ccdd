/// @file
/// GptLayout3D: the GPT's embedding, head and loss on the q x q x q cube.
#pragma once

#include "gpt/gpt_layout.hpp"

namespace tplab::gpt {

/// Rank (i, j, k) holds the activations of token block j*q + i (of q^2) and feature block k
/// (of q). The vocabulary follows:
///
///   embedding  E [V/q^2, h/q]: ids block j*q + i, features block k. The q^2 ranks of
///              input_weight share k and are ordered by j*q + i, the order of the token
///              blocks: each looks up all m tokens, then reduce_scatter over input_weight gives
///              each its block [m/q^2, h/q]; backward all-gathers dx over input_weight and
///              scatter-adds
///   final LN   as the blocks' LayerNorms: statistics all-reduced over output, gamma and beta
///              gradients over input_weight
///   LM head    a Linear3D reading the block layout, with the vocabulary as output features:
///              W [h/q^2, V/q] (in-features block k*q + j, ids block i), b [V/q] (ids block
///              i); logits [m/q^2, V/q] hold token block j*q + k and ids block i. With
///              `regather`, like the blocks' linears, it keeps X alone and gathers X~ and W~
///              again in backward
///   loss       cross-entropy over input (the q ranks that differ in i hold all the ids of a
///              token block): all_reduce max of [m/q^2], all_reduce sum of [m/q^2, 2]; no
///              backward communication
///
/// Needs V divisible by q^2 (the embedding's ids blocks; the head's q divides it then too).
class GptLayout3D final : public GptLayout {
 public:
  /// `regather`: the LM head gathers X~ and W~ again in backward instead of keeping them, as
  /// the blocks do under the scheme's --regather.
  explicit GptLayout3D(bool regather = false) : regather_(regather) {}

  std::string why_not(int world_size, const GptShape& shape) const override;
  std::int64_t vocab_parts(int world_size, const GptShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const GptShape& shape) const override;
  GptParts make_parts(Comm& world, Device& device, const GptShape& shape,
                      const TensorMap& parameters) const override;

 private:
  bool regather_;
};

}  // namespace tplab::gpt
