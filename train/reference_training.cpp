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

/// The reference's shape of the GPT `shape`.
ref::GptShape reference_shape(const gpt::GptShape& shape) {
  return {ref::Shape{shape.block.b, shape.block.s, shape.block.h, shape.block.heads}, shape.vocab,
          shape.layers};
}

/// The reference's parameters from the global arrays.
ref::GptParams<double> reference_parameters(const gpt::GptShape& shape,
                                            const verify::HostArrays& arrays) {
  ref::GptParams<double> params;
  params.blocks.resize(static_cast<std::size_t>(shape.layers));
  for_each_gpt_parameter(params, [&](const std::string& name, auto& field) {
    const verify::HostArray& a = arrays.at(name);
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, ref::Vector<double>>) {
      field = verify::to_reference_vector<double>(a);
    } else {
      field = verify::to_reference_matrix<double>(a);
    }
  });
  return params;
}

/// Step `step`'s masks of `dropout`, as the reference draws them.
ref::Dropout reference_dropout(const DropoutOptions& dropout, std::int64_t step) {
  return {dropout.p, dropout.seed, static_cast<std::uint32_t>(step), 0};
}

}  // namespace

ReferenceGradients reference_gradients(const gpt::GptShape& shape,
                                       const verify::HostArrays& parameters, const Batch& batch,
                                       DropoutOptions dropout, std::int64_t step) {
  ref::GptResult<double> r =
      ref::gpt_forward_backward(reference_shape(shape), reference_parameters(shape, parameters),
                                batch.ids, batch.targets, reference_dropout(dropout, step));
  ReferenceGradients out{.loss = r.loss, .gradients = {}};
  for_each_gpt_parameter(r.grads, [&](const std::string& name, auto& field) {
    out.gradients.emplace(gradient_name(name),
                          verify::to_host_array(field, parameters.at(name).extents));
  });
  return out;
}

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
  model_->shape = reference_shape(shape);
  model_->optimizer = optimizer;
  model_->clip = clip;
  model_->dropout = dropout;
  model_->params = reference_parameters(shape, initial);
  for_each_gpt_parameter(model_->params,
                         [&](const std::string&, auto&) { model_->moments.emplace_back(); });
}

ReferenceTraining::~ReferenceTraining() = default;

verify::HostArrays ReferenceTraining::parameters() const {
  verify::HostArrays out;
  for_each_gpt_parameter(model_->params, [&](const std::string& name, const auto& field) {
    using Field = std::decay_t<decltype(field)>;
    const Extents extents = std::is_same_v<Field, ref::Vector<double>>
                                ? Extents{static_cast<std::int64_t>(field.size())}
                                : Extents{static_cast<std::int64_t>(field.rows()),
                                          static_cast<std::int64_t>(field.cols())};
    out.emplace(name, verify::to_host_array(field, extents));
  });
  return out;
}

ReferenceStep ReferenceTraining::step(const Batch& batch) {
  ref::GptResult<double> r =
      ref::gpt_forward_backward(model_->shape, model_->params, batch.ids, batch.targets,
                                reference_dropout(model_->dropout, model_->steps));
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
