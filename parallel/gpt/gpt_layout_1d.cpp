/// @file
/// GptLayout1D: vocabulary split over tp; activations whole, or split by tokens with sequence
/// parallelism.
#include "gpt/gpt_layout_1d.hpp"

#include <fmt/format.h>

#include "grid/grid_1d.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/conjugate_operators.hpp"

namespace tplab::gpt {
namespace {

/// The LM head: a column-parallel linear whose output features are the vocabulary, after
/// Megatron's f (CopyToTensorParallelRegion) or, with sequence parallelism, an all-gather of
/// the tokens forward and a reduce-scatter of dX backward. Unlike the blocks' sequence-parallel
/// f, the head keeps the gathered input whole rather than gathering it again in backward.
class Head1D final : public Sublayer {
 public:
  Head1D(Device& device, Comm& tp, Tensor weight, Tensor bias, bool sequence_parallel)
      : device_(device),
        tp_(tp),
        copy_to_tp_(tp),
        linear_(device, std::move(weight), std::move(bias)),
        sequence_parallel_(sequence_parallel) {}

  Tensor forward(const Tensor& x) override {
    if (sequence_parallel_) {
      input_ = device_.empty({x.rows() * tp_.size(), x.cols()}, x.dtype());
      // Blocking: the product that follows reads every token of the input at once.
      tp_.all_gather(x, input_);  // [m/t, h] -> [m, h]
    } else {
      input_ = copy_to_tp_.forward(x);  // f: [m, h] passes unchanged
    }
    return linear_.apply(input_);  // [m, h] x [h, V/t] -> [m, V/t]
  }
  Tensor backward(const Tensor& dlogits) override {
    linear_.weight_grads(input_, dlogits);    // [m, h]^T x [m, V/t] -> [h, V/t]
    Tensor dx = linear_.input_grad(dlogits);  // [m, V/t] x [h, V/t]^T -> [m, h], this rank's share
    if (!sequence_parallel_) return copy_to_tp_.backward(std::move(dx)).wait();  // f: summed
    Tensor own = device_.empty({dx.rows() / tp_.size(), dx.cols()}, dx.dtype());
    // Blocking: dX is the head's last result; nothing is left to compute while it travels.
    tp_.reduce_scatter(dx, own);  // [m, h] -> [m/t, h], summed over tp
    return own;
  }
  void collect_gradients(TensorMap& out) const override {
    add_linear_gradients(out, "w_head", "b_head", linear_);
  }
  void forget() override {
    input_ = Tensor();
    copy_to_tp_.forget();
  }

 private:
  Device& device_;
  Comm& tp_;
  tp1d::CopyToTensorParallelRegion copy_to_tp_;  // f, without sequence parallelism
  tp1d::ColumnParallelLinear linear_;
  bool sequence_parallel_;
  Tensor input_;  // X [m, h], whole: the linear's input, kept for its weight gradient
};

}  // namespace

std::int64_t GptLayout1D::vocab_parts(int world_size, const GptShape&) const {
  return world_size;
}

std::string GptLayout1D::why_not(int world_size, const GptShape& shape) const {
  if (shape.vocab % vocab_parts(world_size, shape) == 0) return {};
  return fmt::format(
      "{} splits the vocabulary over its {} ranks, so the vocabulary size {} must be divisible "
      "by {}",
      sequence_parallel_ ? "1D with sequence parallelism" : "1D", world_size, shape.vocab,
      world_size);
}

std::vector<TensorPlacement> GptLayout1D::placements(int world_size, const GptShape& shape) const {
  const int t = world_size;
  const auto own_row = [](int r) { return std::pair<std::int64_t, std::int64_t>{r, 0}; };
  const auto own_column = [](int r) { return std::pair<std::int64_t, std::int64_t>{0, r}; };
  const auto place = [&](const char* name, const char* rule, std::int64_t row_parts,
                         std::int64_t col_parts, const auto& which) {
    return blocked(name, gpt_extents(name, shape), rule, t, row_parts, col_parts, which);
  };
  // The final LayerNorm's parameters are whole on every rank either way: with sequence
  // parallelism each rank normalises its own tokens with them.
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
  GptParts parts;  // those whose parameters this rank holds (GptLayout::make_parts)
  if (p.contains("embedding")) {
    if (sequence_parallel_) {
      const std::int64_t rows = m / tp.size();
      parts.embedding = std::make_unique<VocabParallelEmbedding>(
          device, tp, VocabParallelEmbedding::Combine::reduce_scatter, p.at("embedding"),
          tp.rank() * ids, 0, m, BlockRange{tp.rank() * rows, rows, 0, h}, shape.block.s, h);
    } else {
      parts.embedding = std::make_unique<VocabParallelEmbedding>(
          device, tp, VocabParallelEmbedding::Combine::all_reduce, p.at("embedding"),
          tp.rank() * ids, 0, m, BlockRange{0, m, 0, h}, shape.block.s, h);
    }
  }
  if (p.contains("w_head")) {
    // Sequence parallelism: each rank sums its tokens' share of dgamma, dbeta; the replica group
    // (tp) completes the sums.
    parts.final_norm =
        std::make_unique<LayerNorm>(device, nullptr, sequence_parallel_ ? &tp : nullptr, h,
                                    p.at("lnf_gamma"), p.at("lnf_beta"));
    parts.head =
        std::make_unique<Head1D>(device, tp, p.at("w_head"), p.at("b_head"), sequence_parallel_);
    parts.loss = std::make_unique<VocabParallelCrossEntropy>(
        device, tp, BlockRange{0, m, tp.rank() * ids, ids}, m);
  }
  parts.grid = std::move(grid);
  return parts;
}

}  // namespace tplab::gpt
