/// @file
/// GptModel: one rank's part of the tiny GPT, on one pipeline stage, for M micro-batches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpt/gpt_layout.hpp"

namespace tplab::gpt {

/// ids -> embedding -> L pre-LN blocks -> final LayerNorm -> LM head -> cross-entropy, each
/// part as the scheme and its GptLayout split it, cut into pipeline stages (GptStage: this rank
/// holds its stage's blocks, the first stage the embedding, the last the parts after the
/// blocks). Gradients are explicit, as in the blocks.
///
/// A step runs M micro-batches through the stage in the order a schedule chooses
/// (pipeline/): forward(i) and later backward(i) for each micro-batch i, several forwards
/// possibly in flight. Each micro-batch has its own copy of the stage's modules (sharing the
/// parameter tensors), which keeps what its backward needs until that backward has run. Each
/// backward adds its micro-batch's gradients to the step's in the order the backwards run;
/// finish_step() divides the sum by M, so the gradients are those of the mean loss over the
/// replica's tokens whatever M is. An optimizer (optim/) then updates the shards of
/// parameters() from gradients().
///
/// Parameters are named as in the global model: "embedding", "lnf_gamma", "lnf_beta",
/// "w_head", "b_head", and "layer<l>.<block parameter>" ("layer0.wq"); their gradients
/// "d_<name>". A rank holds only its stage's.
class GptModel {
 public:
  /// The stage `stage` of this rank from its parameter shards (as the scheme's placements and
  /// the layout's cut them; the stage's alone), for micro-batches of the GPT `shape` (the
  /// block's b is one micro-batch's sequences). micro_schemes[i] builds micro-batch i's blocks
  /// (the schemes differ only in where their dropout masks start). With `vocab_in_use` below
  /// shape.vocab, the ids from it on are the padding of a vocabulary padded to shape.vocab
  /// (padded_vocab), masked out of the loss. Gradients are accumulated in `accumulate_in` (the
  /// optimizer's master dtype: f32 for bf16 parameters). Collective over `world` (the stage's
  /// tensor-parallel group).
  GptModel(Comm& world, Device& device, std::span<const Scheme* const> micro_schemes,
           const GptLayout& layout, const GptShape& shape, TensorMap parameters,
           std::int64_t vocab_in_use, GptStage stage, DType accumulate_in);

  /// The stage this rank runs.
  const GptStage& stage() const { return stage_; }
  /// M.
  int micro_batches() const { return static_cast<int>(slots_.size()); }
  /// The extents of this rank's shard of the activations passed between stages (the scheme's
  /// "x" placement for one micro-batch).
  const Extents& boundary_extents() const { return boundary_extents_; }

  /// Begins step `step`: the blocks draw their dropout masks for (step, layer).
  void start_step(std::uint32_t step);
  /// Micro-batch `micro`'s forward. The first stage embeds `ids` (x unused); another stage
  /// takes x, the previous stage's output. Returns this stage's output for the next stage; the
  /// last stage computes the loss of `targets` and returns an empty tensor.
  Tensor forward(int micro, const Tensor& x, std::span<const std::int64_t> ids,
                 std::span<const std::int64_t> targets);
  /// Micro-batch `micro`'s backward, once its forward has run. The last stage starts from its
  /// loss (dy unused); another takes dy, the gradient of its output from the next stage.
  /// Returns the gradient of this stage's input for the previous stage (empty on the first)
  /// and adds the micro-batch's parameter gradients to the step's.
  Tensor backward(int micro, const Tensor& dy);
  /// Ends the step, every micro-batch's backward run: the gradients become the mean over the
  /// micro-batches (their sum, in backward order, times 1/M).
  void finish_step();

  /// The loss of each token of micro-batch `micro` in this rank's logits rows (loss_block().row0
  /// on), after its forward on the last stage.
  const std::vector<double>& losses(int micro) const;
  /// This rank's parameter shards by name: handles onto the tensors the modules compute with,
  /// which an optimizer updates in place.
  const TensorMap& parameters() const { return parameters_; }
  /// This rank's gradient shards by name ("d_embedding", "d_layer0.wq", ...), valid after
  /// finish_step().
  const TensorMap& gradients() const { return gradients_; }
  /// The rows (tokens) and columns (ids) of one micro-batch's logits this rank holds (last
  /// stage).
  const BlockRange& loss_block() const;
  /// True on one rank of each group that shares logits rows of the last stage: its losses are
  /// the ones to count.
  bool counts_loss() const;

 private:
  /// One micro-batch's modules: the stage's parts and blocks, and the losses of its tokens.
  struct Slot {
    GptParts parts;
    std::vector<std::unique_ptr<ParallelModule>> blocks;
    std::vector<double> losses;
  };
  /// Slot `micro`'s gradients, named as gradients() names them.
  TensorMap slot_gradients(const Slot& slot) const;
  /// Adds slot `micro`'s gradients to the step's (the first backward of a step copies them).
  void accumulate(const Slot& slot);

  Device& device_;
  GptStage stage_;
  std::int64_t first_layer_ = 0;
  Extents boundary_extents_;
  std::vector<Slot> slots_;
  TensorMap parameters_;
  TensorMap gradients_;
  std::uint32_t step_ = 0;
  int backwards_ = 0;  // of this step so far
};

}  // namespace tplab::gpt
