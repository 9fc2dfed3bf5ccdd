/// @file
/// GptModel: one rank's part of the tiny GPT.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpt/gpt_layout.hpp"

namespace tplab::gpt {

/// ids -> embedding -> L pre-LN blocks -> final LayerNorm -> LM head -> cross-entropy, each
/// part as the scheme and its GptLayout split it. Gradients are explicit, as in the blocks:
/// forward_backward() runs the whole model forward and back; an optimizer (optim/) then updates
/// the shards of parameters() from gradients().
///
/// Parameters are named as in the global model: "embedding", "lnf_gamma", "lnf_beta",
/// "w_head", "b_head", and "layer<l>.<block parameter>" ("layer0.wq"); their gradients
/// "d_<name>".
class GptModel {
 public:
  /// The model of this rank from its parameter shards (as the scheme's placements and the
  /// layout's cut them). With `vocab_in_use` below shape.vocab, the ids from it on are the
  /// padding of a vocabulary padded to shape.vocab (padded_vocab), masked out of the loss.
  /// Collective over `world`.
  GptModel(Comm& world, Device& device, const Scheme& scheme, const GptLayout& layout,
           const GptShape& shape, TensorMap parameters, std::int64_t vocab_in_use = -1);

  /// Forward and backward for the token ids and targets of all m tokens (the same on every
  /// rank). Returns the loss of each token of this rank's logits rows (loss_block().row0 on),
  /// and leaves the gradient of the mean loss in gradients(). Block l draws its dropout masks
  /// (when the scheme's options drop) for (`step`, l).
  std::vector<double> forward_backward(std::span<const std::int64_t> ids,
                                       std::span<const std::int64_t> targets,
                                       std::uint32_t step = 0);
  /// This rank's parameter shards by name: handles onto the tensors the modules compute with,
  /// which an optimizer updates in place.
  const TensorMap& parameters() const { return parameters_; }
  /// This rank's gradient shards by name ("d_embedding", "d_layer0.wq", ...), valid after
  /// forward_backward().
  TensorMap gradients() const;
  /// The rows (tokens) and columns (ids) of the logits this rank holds.
  const BlockRange& loss_block() const { return parts_.loss->block(); }
  /// True on one rank of each group that shares logits rows: its losses are the ones to count.
  bool counts_loss() const { return parts_.loss->vocab_group().rank() == 0; }
  /// The bytes the last forward_backward() held for its backward once forward and the loss had
  /// run: the device's live storage then, less what was live when it started (the blocks'
  /// kept tensors, the final LayerNorm's, the head's, the logits and the loss's; each part lets
  /// go of them in its backward).
  std::int64_t kept_bytes() const { return kept_bytes_; }

 private:
  Device& device_;
  GptParts parts_;
  std::vector<std::unique_ptr<ParallelModule>> blocks_;
  TensorMap parameters_;
  std::int64_t kept_bytes_ = 0;
};

}  // namespace tplab::gpt
