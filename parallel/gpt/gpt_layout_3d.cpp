/// @file
/// GptLayout3D: vocabulary split over input_weight (embedding) and input (head and loss).
#include "gpt/gpt_layout_3d.hpp"

#include <fmt/format.h>

#include "grid/grid_3d.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_3d.hpp"

namespace tplab::gpt {
namespace {

/// The LM head: a Linear3D in the roles of Q, K, V and fc1 (reading the block layout), whose
/// output features are the vocabulary; with `policy.regather`, X~ and W~ are gathered again in
/// backward.
class Head3D final : public Sublayer {
 public:
  Head3D(Device& device, const Grid3D& grid, Tensor weight, Tensor bias, ExecutionPolicy policy)
      : input_(device, grid, tp3d::kReadsBlockLayout, policy),
        linear_(device, grid, tp3d::kReadsBlockLayout, std::move(weight), std::move(bias), policy) {
  }

  // X~ [m/q, h/q] x W~ [h/q, V/q] -> [m/q, V/q], reduce-scattered to [m/q^2, V/q]
  Tensor forward(const Tensor& x) override { return linear_.forward(input_.forward(x)); }
  Tensor backward(const Tensor& dlogits) override {
    return input_.backward(linear_.backward(dlogits, input_.gathered_for_backward()));
  }
  void collect_gradients(TensorMap& out) const override {
    add_linear_gradients(out, "w_head", "b_head", linear_);
  }
  void forget() override {
    input_.forget();
    linear_.forget();
  }

 private:
  tp3d::InputGather3D input_;
  tp3d::Linear3D linear_;
};

}  // namespace

std::int64_t GptLayout3D::vocab_parts(int world_size, const GptShape&) const {
  const std::int64_t q = cube_side(world_size);
  return q * q;
}

std::string GptLayout3D::why_not(int world_size, const GptShape& shape) const {
  const std::int64_t q = cube_side(world_size);
  if (q == 0 || shape.vocab % (q * q) == 0) return {};
  return fmt::format(
      "3D splits the embedding's vocabulary over the q^2 = {} ranks of a plane, so the "
      "vocabulary size {} must be divisible by {}",
      q * q, shape.vocab, q * q);
}

std::vector<TensorPlacement> GptLayout3D::placements(int world_size, const GptShape& shape) const {
  const std::int64_t q = cube_side(world_size);
  using Block = std::pair<std::int64_t, std::int64_t>;
  const auto at = [&](int rank) { return cube_coordinates(rank, static_cast<int>(q)); };
  const auto place = [&](const char* name, const char* rule, std::int64_t row_parts,
                         std::int64_t col_parts, const auto& which) {
    return blocked(name, gpt_extents(name, shape), rule, world_size, row_parts, col_parts, which);
  };
  const auto along_output = [&](const char* name) {
    return place(name, "Shard(0) over output, Replicate over input_weight", 1, q, [&](int r) {
      return Block{0, at(r).k};
    });
  };
  return {
      place("embedding", "Shard(0) over weight x input, Shard(1) over output", q * q, q,
            [&](int r) {
              return Block{at(r).j * q + at(r).i, at(r).k};
            }),
      along_output("lnf_gamma"),
      along_output("lnf_beta"),
      place("w_head", "Shard(0) over output x weight, Shard(1) over input", q * q, q,
            [&](int r) {
              return Block{at(r).k * q + at(r).j, at(r).i};
            }),
      place("b_head", "Shard(0) over input, Replicate over output_weight", 1, q,
            [&](int r) {
              return Block{0, at(r).i};
            }),
      place("logits", "Shard(0) over weight x output, Shard(1) over input", q * q, q, [&](int r) {
        return Block{at(r).j * q + at(r).k, at(r).i};
      })};
}

GptParts GptLayout3D::make_parts(Comm& world, Device& device, const GptShape& shape,
                                 const TensorMap& p) const {
  auto grid = std::make_shared<Grid3D>(Grid3D::build(world));
  const std::int64_t q = grid->q, i = grid->coordinates.i, j = grid->coordinates.j,
                     k = grid->coordinates.k;
  const std::int64_t m = shape.block.tokens(), h = shape.block.h;
  const std::int64_t rows = m / (q * q);
  GptParts parts;  // those whose parameters this rank holds (GptLayout::make_parts)
  if (p.contains("embedding")) {
    parts.embedding = std::make_unique<VocabParallelEmbedding>(
        device, *grid->input_weight, VocabParallelEmbedding::Combine::reduce_scatter,
        p.at("embedding"), (j * q + i) * (shape.vocab / (q * q)), 0, m,
        BlockRange{(j * q + i) * rows, rows, k * (h / q), h / q}, shape.block.s, h);
  }
  if (p.contains("w_head")) {
    parts.final_norm =
        std::make_unique<LayerNorm>(device, grid->output.get(), grid->input_weight.get(), h,
                                    p.at("lnf_gamma"), p.at("lnf_beta"));
    // blocking (no overlap): the head's products need their gathers at once, and nothing
    // else is left to compute beside them
    parts.head = std::make_unique<Head3D>(device, *grid, p.at("w_head"), p.at("b_head"),
                                          ExecutionPolicy{.regather = regather_});
    const std::int64_t ids = shape.vocab / q;
    parts.loss = std::make_unique<VocabParallelCrossEntropy>(
        device, *grid->input, BlockRange{(j * q + k) * rows, rows, i * ids, ids}, m);
  }
  parts.grid = std::move(grid);
  return parts;
}

}  // namespace tplab::gpt
