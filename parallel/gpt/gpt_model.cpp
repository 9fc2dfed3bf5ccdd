/// @file
/// GptModel: the parts in order, forward and back.
#include "gpt/gpt_model.hpp"

namespace tplab::gpt {

GptModel::GptModel(Comm& world, Device& device, const Scheme& scheme, const GptLayout& layout,
                   const GptShape& shape, TensorMap parameters, std::int64_t vocab_in_use)
    : device_(device), parameters_(std::move(parameters)) {
  validate_gpt(scheme, layout, world.size(), shape);
  parts_ = layout.make_parts(world, device, shape, parameters_);
  if (vocab_in_use >= 0 && vocab_in_use < shape.vocab) parts_.loss->mask_ids_from(vocab_in_use);
  for (std::int64_t l = 0; l < shape.layers; ++l) {
    // The block's modules keep handles to these tensors: the optimizer updates them in place.
    TensorMap block;
    for (std::string_view name : kBlockParameters) {
      block.emplace(std::string(name), parameters_.at(layer_parameter(name, l)));
    }
    blocks_.push_back(
        scheme.make_module(world, device, shape.block, Workload::block, std::move(block)));
  }
}

std::vector<double> GptModel::forward_backward(std::span<const std::int64_t> ids,
                                               std::span<const std::int64_t> targets,
                                               std::uint32_t step) {
  const std::size_t live = device_.allocations().live_bytes();
  Tensor x = parts_.embedding->forward(ids);
  for (std::size_t l = 0; l < blocks_.size(); ++l) {
    blocks_[l]->set_dropout_draw({step, static_cast<std::uint32_t>(l)});
    x = blocks_[l]->forward(x);
  }
  const Tensor logits = parts_.head->forward(parts_.final_norm->forward(x));
  std::vector<double> losses = parts_.loss->forward(logits, targets);
  x = Tensor();  // the last block's output: LN_f keeps what it needs of it
  kept_bytes_ = static_cast<std::int64_t>(device_.allocations().live_bytes()) -
                static_cast<std::int64_t>(live);

  // each part lets go of what it kept as soon as its backward is done, as the blocks do
  const Tensor dlogits = parts_.loss->backward();
  parts_.loss->forget();
  const Tensor dnorm = parts_.head->backward(dlogits);
  parts_.head->forget();
  Tensor dx = parts_.final_norm->backward(dnorm);
  parts_.final_norm->forget();
  for (auto block = blocks_.rbegin(); block != blocks_.rend(); ++block) {
    dx = (*block)->backward(dx);
  }
  parts_.embedding->backward(dx);
  if (parts_.gradient_group != nullptr) {
    // 2.5D: these parameters repeat over depth while each layer saw its own tokens (the
    // blocks sum their own gradients over depth in their backward).
    TensorMap own;
    own.emplace("d_embedding", parts_.embedding->table_grad());
    own.emplace("d_lnf_gamma", parts_.final_norm->gamma_grad());
    own.emplace("d_lnf_beta", parts_.final_norm->beta_grad());
    parts_.head->collect_gradients(own);
    for (auto& [name, grad] : own) parts_.gradient_group->all_reduce(grad);
  }
  return losses;
}

TensorMap GptModel::gradients() const {
  TensorMap out;
  out.emplace("d_embedding", parts_.embedding->table_grad());
  out.emplace("d_lnf_gamma", parts_.final_norm->gamma_grad());
  out.emplace("d_lnf_beta", parts_.final_norm->beta_grad());
  parts_.head->collect_gradients(out);
  for (std::size_t l = 0; l < blocks_.size(); ++l) {
    for (auto& [name, grad] : blocks_[l]->gradients()) {
      out.emplace(gradient_name(layer_parameter(std::string_view(name).substr(2),
                                                static_cast<std::int64_t>(l))),
                  grad);
    }
  }
  return out;
}

}  // namespace tplab::gpt
