/// @file
/// GptModel: one rank's part of the tiny GPT, trained with SGD.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpt/gpt_layout.hpp"

namespace tplab::gpt {

/// ids -> embedding -> L pre-LN blocks -> final LayerNorm -> LM head -> cross-entropy, each
/// part as the scheme and its GptLayout split it. Gradients are explicit, as in the blocks:
/// forward_backward() runs the whole model forward and back, sgd_step() then updates every
/// shard this rank holds.
///
/// Parameters are named as in the global model: "embedding", "lnf_gamma", "lnf_beta",
/// "w_head", "b_head", and "layer<l>.<block parameter>" ("layer0.wq"); their gradients
/// "d_<name>".
class GptModel {
 public:
  /// The model of this rank from its parameter shards (as the scheme's placements and the
  /// layout's cut them). Collective over `world`.
  GptModel(Comm& world, Device& device, const Scheme& scheme, const GptLayout& layout,
           const GptShape& shape, TensorMap parameters);

  /// Forward and backward for the token ids and targets of all m tokens (the same on every
  /// rank). Returns the loss of each token of this rank's logits rows (loss_block().row0 on),
  /// and leaves the gradient of the mean loss in gradients().
  std::vector<double> forward_backward(std::span<const std::int64_t> ids,
                                       std::span<const std::int64_t> targets);
  /// Plain SGD on every shard: p -= learning_rate * dp. Ranks that hold the same shard hold
  /// the same gradient bits, so they stay identical.
  void sgd_step(double learning_rate);

  /// This rank's parameter shards by name.
  const TensorMap& parameters() const { return parameters_; }
  /// This rank's gradient shards by name ("d_embedding", "d_layer0.wq", ...), valid after
  /// forward_backward().
  TensorMap gradients() const;
  /// The rows (tokens) and columns (ids) of the logits this rank holds.
  const BlockRange& loss_block() const { return parts_.loss->block(); }
  /// True on one rank of each group that shares logits rows: its losses are the ones to count.
  bool counts_loss() const { return parts_.loss->vocab_group().rank() == 0; }

 private:
  Device& device_;
  GptParts parts_;
  std::vector<std::unique_ptr<ParallelModule>> blocks_;
  TensorMap parameters_;
};

}  // namespace tplab::gpt
