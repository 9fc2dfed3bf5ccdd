/// @file
/// GptLayout1D: vocabulary split over tp, activations whole.
#include "gpt/gpt_layout_1d.hpp"

#include <fmt/format.h>

#include "grid/grid_1d.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/conjugate_operators.hpp"

namespace tplab::gpt {
namespace {

/// The LM head: a column-parallel linear whose output features are the vocabulary.
class Head1D final : public Sublayer {
 public:
  Head1D(Device& device, Comm& tp, Tensor weight, Tensor bias)
      : tp_(tp), linear_(device, std::move(weight), std::move(bias)) {}

  // [m, h] x [h, V/t] -> [m, V/t]
  Tensor forward(const Tensor& x) override { return linear_.forward(tp1d::OperatorF::forward(x)); }
  Tensor backward(const Tensor& dlogits) override {
    Tensor dx = linear_.backward(dlogits);  // this rank's share of dX, [m, h]
    tp1d::OperatorF::backward(tp_, dx);
    return dx;
  }
  void collect_gradients(TensorMap& out) const override {
    add_linear_gradients(out, "w_head", "b_head", linear_);
  }
  std::size_t saved_bytes() const override { return linear_.saved_bytes(); }

 private:
  Comm& tp_;
  tp1d::ColumnParallelLinear linear_;
};

}  // namespace

std::string GptLayout1D::why_not(int world_size, const GptShape& shape) const {
  if (shape.vocab % world_size == 0) return {};
  return fmt::format(
      "1D splits the vocabulary over its {} ranks, so the vocabulary size {} must be divisible "
      "by {}",
      world_size, shape.vocab, world_size);
}

std::vector<TensorPlacement> GptLayout1D::placements(int world_size, const GptShape& shape) const {
  const int t = world_size;
  const auto own_row = [](int r) { return std::pair<std::int64_t, std::int64_t>{r, 0}; };
  const auto own_column = [](int r) { return std::pair<std::int64_t, std::int64_t>{0, r}; };
  const auto place = [&](const char* name, const char* rule, std::int64_t row_parts,
                         std::int64_t col_parts, const auto& which) {
    return blocked(name, gpt_extents(name, shape), rule, t, row_parts, col_parts, which);
  };
  return {place("embedding", "Shard(0) over tp", t, 1, own_row),
          replicated("lnf_gamma", gpt_extents("lnf_gamma", shape), t),
          replicated("lnf_beta", gpt_extents("lnf_beta", shape), t),
          place("w_head", "Shard(1) over tp", 1, t, own_column),
          place("b_head", "Shard(0) over tp", 1, t, own_column),
          place("logits", "Shard(1) over tp", 1, t, own_column)};
}

GptParts GptLayout1D::make_parts(Comm& world, Device& device, const GptShape& shape,
                                 const TensorMap& p) const {
  auto grid = std::make_shared<Grid1D>(Grid1D::build(world));
  Comm& tp = *grid->tp;
  const std::int64_t m = shape.block.tokens(), h = shape.block.h;
  const std::int64_t ids = shape.vocab / tp.size();
  GptParts parts;
  parts.embedding = std::make_unique<VocabParallelEmbedding>(
      device, tp, VocabParallelEmbedding::Combine::all_reduce, p.at("embedding"), tp.rank() * ids,
      0, m, BlockRange{0, m, 0, h}, shape.block.s, h);
  parts.final_norm =
      std::make_unique<LayerNorm>(device, nullptr, nullptr, h, p.at("lnf_gamma"), p.at("lnf_beta"));
  parts.head = std::make_unique<Head1D>(device, tp, p.at("w_head"), p.at("b_head"));
  parts.loss = std::make_unique<VocabParallelCrossEntropy>(
      device, tp, BlockRange{0, m, tp.rank() * ids, ids}, m);
  parts.grid = std::move(grid);
  return parts;
}

}  // namespace tplab::gpt
