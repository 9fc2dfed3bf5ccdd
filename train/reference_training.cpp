/// @file
/// The reference's training loop: forward, backward, the clip and the update on whole matrices.
#include "reference_training.hpp"

#include <cmath>
#include <type_traits>

#include "reference_bridge.hpp"
#include "tplab/reference/adamw.hpp"
#include "tplab/reference/gpt.hpp"

namespace tplab::train {
namespace {

namespace ref = tplab::reference;

/// Calls f(global name, field) for every parameter of the reference's model.
template <typename Params, typename F>
void for_each_gpt_parameter(Params& p, F&& f) {
  f("embedding", p.embedding);
  for (std::size_t l = 0; l < p.blocks.size(); ++l) {
    verify::for_each_parameter(p.blocks[l], [&](std::string_view name, auto& field) {
      f(gpt::layer_parameter(name, static_cast<std::int64_t>(l)), field);
    });
  }
  f("lnf_gamma", p.lnf_gamma);
  f("lnf_beta", p.lnf_beta);
  f("w_head", p.w_head);
  f("b_head", p.b_head);
}

/// A parameter or gradient of the reference as one flat array.
template <typename Field>
Eigen::Map<Eigen::ArrayXd> flat(Field& field) {
  return {field.data(), field.size()};
}

}  // namespace

struct ReferenceTraining::Model {
  ref::GptShape shape;
  ref::GptParams<double> params;
  OptimizerConfig optimizer;
  double clip = 0;
  DropoutOptions dropout;
  std::vector<ref::AdamWMoments> moments;  // one per parameter, in for_each_gpt_parameter order
  std::int64_t steps = 0;
};

ReferenceTraining::ReferenceTraining(const gpt::GptShape& shape, const verify::HostArrays& initial,
                                     const OptimizerConfig& optimizer, double clip,
                                     DropoutOptions dropout)
    : model_(std::make_unique<Model>()) {
  model_->shape = {ref::Shape{shape.block.b, shape.block.s, shape.block.h, shape.block.heads},
                   shape.vocab, shape.layers};
  model_->optimizer = optimizer;
  model_->clip = clip;
  model_->dropout = dropout;
  model_->params.blocks.resize(static_cast<std::size_t>(shape.layers));
  for_each_gpt_parameter(model_->params, [&](const std::string& name, auto& field) {
    const verify::HostArray& a = initial.at(name);
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, ref::Vector<double>>) {
      field = verify::to_reference_vector<double>(a);
    } else {
      field = verify::to_reference_matrix<double>(a);
    }
    model_->moments.emplace_back();
  });
}

ReferenceTraining::~ReferenceTraining() = default;

ReferenceStep ReferenceTraining::step(const Batch& batch) {
  const ref::Dropout dropout{model_->dropout.p, model_->dropout.seed,
                             static_cast<std::uint32_t>(model_->steps), 0};
  ref::GptResult<double> r =
      ref::gpt_forward_backward(model_->shape, model_->params, batch.ids, batch.targets, dropout);
  // every gradient as a flat array, in one order with the parameters below
  std::vector<Eigen::Map<Eigen::ArrayXd>> grads;
  for_each_gpt_parameter(r.grads,
                         [&](const std::string&, auto& field) { grads.push_back(flat(field)); });
  double squares = 0;
  for (const auto& g : grads) squares += g.square().sum();
  const ReferenceStep out{r.loss, std::sqrt(squares)};
  if (model_->clip > 0) {
    const double coefficient = model_->clip / (out.gradient_norm + 1e-6);
    if (!(coefficient >= 1.0)) {  // a NaN norm makes every gradient NaN
      for (auto& g : grads) g *= coefficient;
    }
  }
  const OptimizerConfig& o = model_->optimizer;
  const ref::AdamW adamw{o.learning_rate, o.beta1, o.beta2, o.eps, o.weight_decay};
  ++model_->steps;
  std::size_t next = 0;
  for_each_gpt_parameter(model_->params, [&](const std::string&, auto& field) {
    const std::size_t i = next++;
    if (o.kind == OptimizerKind::sgd) {
      flat(field) -= o.learning_rate * grads[i];
    } else {
      // matrices decay, vectors (biases, LayerNorm) do not
      constexpr bool is_matrix =
          !std::is_same_v<std::decay_t<decltype(field)>, ref::Vector<double>>;
      ref::adamw_step(flat(field), grads[i], model_->moments[i], adamw, model_->steps, is_matrix);
    }
  });
  return out;
}

}  // namespace tplab::train
