/// @file
/// GptLayoutMesh: vocabulary split by mesh rows (embedding) and columns (head) on 2D and 2.5D.
#include "gpt/gpt_layout_mesh.hpp"

#include <fmt/format.h>

#include "grid/grid_2p5d.hpp"
#include "tp2d/linear_2d.hpp"
#include "tp2p5d/scheme_2p5d.hpp"

namespace tplab::gpt {
namespace {

/// The LM head: a Linear2D whose output features are the vocabulary.
class Head2D final : public Sublayer {
 public:
  Head2D(Device& device, Grid2D& grid, Tensor weight, Tensor bias)
      : linear_(device, grid, std::move(weight), std::move(bias)) {}

  // SUMMA: [m/(d q), h/q] x [h/q, V/q] -> [m/(d q), V/q]
  Tensor forward(const Tensor& x) override { return linear_.forward(x); }
  Tensor backward(const Tensor& dlogits) override { return linear_.backward(dlogits); }
  void collect_gradients(TensorMap& out) const override {
    add_linear_gradients(out, "w_head", "b_head", linear_);
  }
  void forget() override { linear_.forget(); }

 private:
  tp2d::Linear2D linear_;
};

}  // namespace

int GptLayoutMesh::depth_for(int world_size, const GptShape& shape) const {
  if (!two_and_a_half_) return 1;
  return tp2p5d::Scheme2p5D({.depth = depth_}).depth_for(world_size, shape.block);
}

std::int64_t GptLayoutMesh::vocab_parts(int world_size, const GptShape& shape) const {
  const int d = depth_for(world_size, shape);
  return d > 0 ? square_root(world_size / d) : 0;
}

std::string GptLayoutMesh::why_not(int world_size, const GptShape& shape) const {
  const std::int64_t q = vocab_parts(world_size, shape);
  if (q == 0 || shape.vocab % q == 0) return {};
  return fmt::format(
      "{} splits the vocabulary over the q = {} ranks of a mesh row and column, so the "
      "vocabulary size {} must be divisible by {}",
      two_and_a_half_ ? "2.5D" : "2D", q, shape.vocab, q);
}

std::vector<TensorPlacement> GptLayoutMesh::placements(int world_size,
                                                       const GptShape& shape) const {
  const int d = depth_for(world_size, shape);
  const int q = square_root(world_size / d);
  // rank = j + q*i + q^2*k
  const auto i_of = [q](int r) { return static_cast<std::int64_t>((r % (q * q)) / q); };
  const auto j_of = [q](int r) { return static_cast<std::int64_t>(r % q); };
  const auto k_of = [q](int r) { return static_cast<std::int64_t>(r / (q * q)); };
  using Block = std::pair<std::int64_t, std::int64_t>;
  const std::string depth_note = d > 1 ? ", replicated over k" : "";
  const auto mesh_block = [&](const char* name) {
    return blocked(name, gpt_extents(name, shape), "rows by i, cols by j" + depth_note, world_size,
                   q, q, [&](int r) {
                     return Block{i_of(r), j_of(r)};
                   });
  };
  const auto by_column = [&](const char* name) {
    return blocked(name, gpt_extents(name, shape), "by j, replicated over i" + depth_note,
                   world_size, 1, q, [&](int r) {
                     return Block{0, j_of(r)};
                   });
  };
  return {mesh_block("embedding"),
          by_column("lnf_gamma"),
          by_column("lnf_beta"),
          mesh_block("w_head"),
          by_column("b_head"),
          blocked("logits", gpt_extents("logits", shape),
                  d > 1 ? "rows by k*q+i, cols by j" : "rows by i, cols by j", world_size, d * q, q,
                  [&](int r) {
                    return Block{k_of(r) * q + i_of(r), j_of(r)};
                  })};
}

GptParts GptLayoutMesh::make_parts(Comm& world, Device& device, const GptShape& shape,
                                   const TensorMap& p) const {
  const int d = depth_for(world.size(), shape);
  // 2D is the one layer of d = 1: the same ranks, (i, j) and row and column groups
  auto mesh = std::make_shared<Grid2p5D>(Grid2p5D::build(world, d));
  Grid2D& layer = mesh->layer;
  const std::int64_t q = layer.q, i = layer.i, j = layer.j, k = mesh->k;
  const std::int64_t m = shape.block.tokens(), h = shape.block.h;
  const std::int64_t layer_tokens = m / d, rows = layer_tokens / q, ids = shape.vocab / q;
  const std::int64_t first_row = k * layer_tokens + i * rows;
  GptParts parts;  // those whose parameters this rank holds (GptLayout::make_parts)
  if (p.contains("embedding")) {
    parts.embedding = std::make_unique<VocabParallelEmbedding>(
        device, *layer.column, VocabParallelEmbedding::Combine::reduce_scatter, p.at("embedding"),
        i * ids, k * layer_tokens, layer_tokens, BlockRange{first_row, rows, j * (h / q), h / q},
        shape.block.s, h);
  }
  if (p.contains("w_head")) {
    parts.final_norm = std::make_unique<LayerNorm>(device, layer.row.get(), layer.column.get(), h,
                                                   p.at("lnf_gamma"), p.at("lnf_beta"));
    parts.head = std::make_unique<Head2D>(device, layer, p.at("w_head"), p.at("b_head"));
    parts.loss = std::make_unique<VocabParallelCrossEntropy>(
        device, *layer.row, BlockRange{first_row, rows, j * ids, ids}, m);
  }
  if (d > 1) parts.gradient_group = mesh->depth.get();
  parts.grid = std::move(mesh);
  return parts;
}

}  // namespace tplab::gpt
