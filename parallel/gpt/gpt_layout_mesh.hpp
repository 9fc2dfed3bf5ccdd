/// @file
/// GptLayoutMesh: the GPT's embedding, head and loss on 2D's mesh and 2.5D's layers of meshes.
#pragma once

#include "gpt/gpt_layout.hpp"

namespace tplab::gpt {

/// Rank (i, j) of a q x q mesh (on depth layer k of d for 2.5D; d = 1 is 2D) holds the
/// activations of token block i (k*q + i) and feature block j. The vocabulary follows:
///
///   embedding  E(i, j) [V/q, h/q]: ids block i, features block j, repeated over depth. Column
///              j holds every id of features j: each rank looks up all the layer's tokens,
///              then reduce_scatter over column gives rank (i, j) its token block
///              [m/(d q), h/q]; backward all-gathers dx over column and scatter-adds
///   final LN   as the blocks' LayerNorms: statistics all-reduced over row, gamma and beta
///              gradients over column
///   LM head    a Linear2D (SUMMA) with the vocabulary as output features: W(i, j) [h/q, V/q],
///              b(j) [V/q]; logits(i, j) [m/(d q), V/q] hold token block i, ids block j
///   loss       cross-entropy over row (the ranks of one token block hold all the ids):
///              all_reduce max of [m/(d q)], all_reduce sum of [m/(d q), 2]; no backward
///              communication
///   2.5D       every gradient of these parts is also all-reduced over depth, like the
///              blocks' own
///
/// Needs V divisible by q.
class GptLayoutMesh final : public GptLayout {
 public:
  /// 2D (`two_and_a_half` false, one layer) or 2.5D with its --depth option `depth` (0:
  /// chosen from the world size, as the scheme does).
  GptLayoutMesh(bool two_and_a_half, int depth)
      : two_and_a_half_(two_and_a_half), depth_(two_and_a_half ? depth : 1) {}
  std::string why_not(int world_size, const GptShape& shape) const override;
  std::int64_t vocab_parts(int world_size, const GptShape& shape) const override;
  std::vector<TensorPlacement> placements(int world_size, const GptShape& shape) const override;
  GptParts make_parts(Comm& world, Device& device, const GptShape& shape,
                      const TensorMap& parameters) const override;

 private:
  int depth_for(int world_size, const GptShape& shape) const;
  bool two_and_a_half_;
  int depth_;
};

}  // namespace tplab::gpt
