/// @file
/// The reference's training loop: forward, backward and SGD on whole matrices.
#include "reference_training.hpp"

#include <type_traits>

#include "reference_bridge.hpp"
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

}  // namespace

struct ReferenceTraining::Model {
  ref::GptShape shape;
  ref::GptParams<double> params;
  double learning_rate = 0;
};

ReferenceTraining::ReferenceTraining(const gpt::GptShape& shape, const verify::HostArrays& initial,
                                     double learning_rate)
    : model_(std::make_unique<Model>()) {
  model_->shape = {ref::Shape{shape.block.b, shape.block.s, shape.block.h, shape.block.heads},
                   shape.vocab, shape.layers};
  model_->learning_rate = learning_rate;
  model_->params.blocks.resize(static_cast<std::size_t>(shape.layers));
  for_each_gpt_parameter(model_->params, [&](const std::string& name, auto& field) {
    const verify::HostArray& a = initial.at(name);
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, ref::Vector<double>>) {
      field = verify::to_reference_vector<double>(a);
    } else {
      field = verify::to_reference_matrix<double>(a);
    }
  });
}

ReferenceTraining::~ReferenceTraining() = default;

double ReferenceTraining::step(const Batch& batch) {
  ref::GptResult<double> r =
      ref::gpt_forward_backward(model_->shape, model_->params, batch.ids, batch.targets);
  // SGD, the same update as GptModel::sgd_step, on whole tensors (both walks list the
  // parameters in one order)
  std::vector<Eigen::Map<ref::Vector<double>>> grads;
  for_each_gpt_parameter(r.grads, [&](const std::string&, auto& field) {
    grads.emplace_back(field.data(), field.size());
  });
  std::size_t next = 0;
  for_each_gpt_parameter(model_->params, [&](const std::string&, auto& field) {
    Eigen::Map<ref::Vector<double>>(field.data(), field.size()) -=
        model_->learning_rate * grads[next++];
  });
  return r.loss;
}

}  // namespace tplab::train
