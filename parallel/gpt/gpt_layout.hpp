/// @file
/// GptLayout: how one scheme places the parts of the GPT outside its blocks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpt/gpt_shape.hpp"
#include "gpt/vocab_parallel_cross_entropy.hpp"
#include "gpt/vocab_parallel_embedding.hpp"
#include "layers/layernorm.hpp"
#include "layers/sublayer.hpp"
#include "scheme/scheme.hpp"

namespace tplab::gpt {

/// One rank's embedding, final LayerNorm, LM head and loss, built by a GptLayout. The blocks
/// between them come from the scheme itself (Scheme::make_module).
struct GptParts {
  /// The process grid of the parts: it owns the communicators they use.
  std::shared_ptr<void> grid;
  /// Token ids -> this rank's block of the [m, h] activations (the scheme's "x" placement).
  std::unique_ptr<VocabParallelEmbedding> embedding;
  /// The final LayerNorm, on the scheme's activation layout.
  std::unique_ptr<LayerNorm> final_norm;
  /// Activations -> this rank's block of the [m, V] logits; collects "d_w_head", "d_b_head".
  std::unique_ptr<Sublayer> head;
  /// The cross-entropy over the vocabulary group of the logits.
  std::unique_ptr<VocabParallelCrossEntropy> loss;
  /// Ranks that hold the same parameter shards for other tokens (2.5D's depth group): the
  /// parts' gradients are summed over it. Null when no such ranks exist.
  Comm* gradient_group = nullptr;
};

/// A scheme's placement of the model parameters (kModelParameters) and of the logits, and the
/// parts built from them. Each scheme splits the vocabulary the way its activation layout
/// suggests (see the implementations, gpt_layout_1d.cpp, gpt_layout_mesh.cpp and
/// gpt_layout_3d.cpp); a new scheme adds one such file and names it in its registry entry
/// (registry/scheme_registry.cpp).
class GptLayout {
 public:
  virtual ~GptLayout() = default;
  /// Empty when the vocabulary of `shape` splits over `world_size` ranks as this layout cuts
  /// it (the block's own rules are the scheme's); otherwise a sentence saying what would work.
  virtual std::string why_not(int world_size, const GptShape& shape) const = 0;
  /// The number of equal parts the vocabulary is cut into on `world_size` ranks (1D: t; 2D and
  /// 2.5D: q; 3D: q^2), which V must be a multiple of; 0 when the scheme makes no grid of
  /// `world_size` ranks.
  virtual std::int64_t vocab_parts(int world_size, const GptShape& shape) const = 0;
  /// Where "embedding", "lnf_gamma", "lnf_beta", "w_head", "b_head" and "logits" live.
  virtual std::vector<TensorPlacement> placements(int world_size, const GptShape& shape) const = 0;
  /// This rank's parts from its shards of the model parameters: the embedding where they hold
  /// "embedding", the final LayerNorm, the head and the loss where they hold "w_head" (a
  /// pipeline stage holds some of them or none). Collective over `world`.
  virtual GptParts make_parts(Comm& world, Device& device, const GptShape& shape,
                              const TensorMap& parameters) const = 0;
};

/// V rounded up to a multiple of the layout's vocab_parts() on `world_size` ranks, as
/// Megatron-LM pads its vocabulary: the ids from V on are padding, which the loss masks out
/// (VocabParallelCrossEntropy::mask_ids_from). V itself when no grid fits.
std::int64_t padded_vocab(const GptLayout& layout, int world_size, const GptShape& shape);

/// Where every parameter of the GPT `shape` lives on `world_size` ranks: the layout's placements
/// for the model's own parameters (and the logits), the scheme's block placements, the same for
/// every layer, for each layer's ("layer0.wq", ...).
std::vector<TensorPlacement> gpt_parameter_placements(const Scheme& scheme, const GptLayout& layout,
                                                      int world_size, const GptShape& shape);

/// Throws UsageError, the same on every rank, unless `scheme` and its layout can run `shape`
/// on `world_size` ranks.
void validate_gpt(const Scheme& scheme, const GptLayout& layout, int world_size,
                  const GptShape& shape);

}  // namespace tplab::gpt
