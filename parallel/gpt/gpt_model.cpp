/// @file
/// GptModel: the parts of one stage in order, forward and back, micro-batch by micro-batch.
#include "gpt/gpt_model.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab::gpt {

GptModel::GptModel(Comm& world, Device& device, std::span<const Scheme* const> micro_schemes,
                   const GptLayout& layout, const GptShape& shape, TensorMap parameters,
                   std::int64_t vocab_in_use, GptStage stage, DType accumulate_in)
    : device_(device),
      stage_(stage),
      first_layer_(stage.first_layer(shape)),
      parameters_(std::move(parameters)) {
  check(!micro_schemes.empty(), "a GPT step runs at least one micro-batch");
  validate_gpt(*micro_schemes.front(), layout, world.size(), shape);
  boundary_extents_ =
      find_placement(micro_schemes.front()->placements(world.size(), shape.block, Workload::block),
                     "x")
          .local_extents(world.rank());
  for (const Scheme* scheme : micro_schemes) {
    Slot slot;
    // The layout builds the parts whose parameters this stage holds.
    slot.parts = layout.make_parts(world, device, shape, parameters_);
    if (slot.parts.loss && vocab_in_use >= 0 && vocab_in_use < shape.vocab) {
      slot.parts.loss->mask_ids_from(vocab_in_use);
    }
    for (std::int64_t l = first_layer_; l < first_layer_ + stage.layers(shape); ++l) {
      // The block's modules keep handles to these tensors: the optimizer updates them in place,
      // and every micro-batch's copy computes with the same ones.
      TensorMap block;
      for (std::string_view name : kBlockParameters) {
        block.emplace(std::string(name), parameters_.at(layer_parameter(name, l)));
      }
      slot.blocks.push_back(
          scheme->make_module(world, device, shape.block, Workload::block, std::move(block)));
    }
    slots_.push_back(std::move(slot));
  }
  for (const auto& [name, shard] : parameters_) {
    gradients_.emplace(gradient_name(name), device.empty(shard.extents(), accumulate_in));
  }
}

void GptModel::start_step(std::uint32_t step) {
  step_ = step;
  backwards_ = 0;
}

Tensor GptModel::forward(int micro, const Tensor& x, std::span<const std::int64_t> ids,
                         std::span<const std::int64_t> targets) {
  Slot& slot = slots_.at(static_cast<std::size_t>(micro));
  Tensor h = stage_.first() ? slot.parts.embedding->forward(ids) : x;
  for (std::size_t l = 0; l < slot.blocks.size(); ++l) {
    slot.blocks[l]->set_dropout_draw(
        {step_, static_cast<std::uint32_t>(first_layer_ + static_cast<std::int64_t>(l))});
    h = slot.blocks[l]->forward(h);
  }
  if (!stage_.last()) return h;
  const Tensor logits = slot.parts.head->forward(slot.parts.final_norm->forward(h));
  slot.losses = slot.parts.loss->forward(logits, targets);
  return Tensor();  // the last block's output: LN_f keeps what it needs of it
}

Tensor GptModel::backward(int micro, const Tensor& dy) {
  Slot& slot = slots_.at(static_cast<std::size_t>(micro));
  Tensor dx = dy;
  if (stage_.last()) {
    // each part lets go of what it kept as soon as its backward is done, as the blocks do
    const Tensor dlogits = slot.parts.loss->backward();
    slot.parts.loss->forget();
    const Tensor dnorm = slot.parts.head->backward(dlogits);
    slot.parts.head->forget();
    dx = slot.parts.final_norm->backward(dnorm);
    slot.parts.final_norm->forget();
  }
  for (auto block = slot.blocks.rbegin(); block != slot.blocks.rend(); ++block) {
    dx = (*block)->backward(dx);
  }
  if (stage_.first()) {
    slot.parts.embedding->backward(dx);
    dx = Tensor();
  }
  if (slot.parts.gradient_group != nullptr) {
    // 2.5D: these parameters repeat over depth while each layer saw its own tokens (the
    // blocks sum their own gradients over depth in their backward).
    TensorMap own;
    if (slot.parts.embedding) own.emplace("d_embedding", slot.parts.embedding->table_grad());
    if (slot.parts.final_norm) {
      own.emplace("d_lnf_gamma", slot.parts.final_norm->gamma_grad());
      own.emplace("d_lnf_beta", slot.parts.final_norm->beta_grad());
      slot.parts.head->collect_gradients(own);
    }
    for (auto& [name, grad] : own) slot.parts.gradient_group->all_reduce(grad);
  }
  accumulate(slot);
  return dx;
}

void GptModel::accumulate(const Slot& slot) {
  for (const auto& [name, grad] : slot_gradients(slot)) {
    Tensor& sum = gradients_.at(name);
    Tensor term = grad;
    if (grad.dtype() != sum.dtype()) {
      // bf16 widened to the sum's f32 through the host, exactly (f64 holds both)
      std::vector<double> values(static_cast<std::size_t>(grad.numel()));
      device_.download(grad, values);
      term = device_.empty(grad.extents(), sum.dtype());
      device_.upload(values, term);
    }
    if (backwards_ == 0) {
      device_.copy(term, sum);
    } else {
      device_.add_inplace(sum, term);
    }
  }
  ++backwards_;
}

void GptModel::finish_step() {
  check(backwards_ == micro_batches(),
        fmt::format("a step ended after {} of its {} micro-batches' backwards", backwards_,
                    micro_batches()));
  if (micro_batches() == 1) return;
  for (auto& [name, sum] : gradients_) device_.scale(sum, 1.0 / micro_batches());
}

const std::vector<double>& GptModel::losses(int micro) const {
  return slots_.at(static_cast<std::size_t>(micro)).losses;
}

const BlockRange& GptModel::loss_block() const {
  check(stage_.last(), "only the last stage holds the loss");
  return slots_.front().parts.loss->block();
}

bool GptModel::counts_loss() const {
  return stage_.last() && slots_.front().parts.loss->vocab_group().rank() == 0;
}

TensorMap GptModel::slot_gradients(const Slot& slot) const {
  TensorMap out;
  if (slot.parts.embedding) out.emplace("d_embedding", slot.parts.embedding->table_grad());
  if (slot.parts.final_norm) {
    out.emplace("d_lnf_gamma", slot.parts.final_norm->gamma_grad());
    out.emplace("d_lnf_beta", slot.parts.final_norm->beta_grad());
    slot.parts.head->collect_gradients(out);
  }
  for (std::size_t l = 0; l < slot.blocks.size(); ++l) {
    for (auto& [name, grad] : slot.blocks[l]->gradients()) {
      out.emplace(gradient_name(layer_parameter(std::string_view(name).substr(2),
                                                first_layer_ + static_cast<std::int64_t>(l))),
                  grad);
    }
  }
  return out;
}

}  // namespace tplab::gpt
