/// @file
/// ShardedOptimizer: the state made beside each shard, and the step.
#include "optim/sharded_optimizer.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "scheme/block_shape.hpp"

namespace tplab {

std::string_view optimizer_name(OptimizerKind kind) {
  return kind == OptimizerKind::sgd ? "sgd" : "adamw";
}

bool decays(const Extents& extents) {
  return extents.size() >= 2;
}

ShardedOptimizer::ShardedOptimizer(Device& device, const TensorMap& parameters,
                                   const OptimizerConfig& config)
    : device_(device), config_(config) {
  if (config_.kind != OptimizerKind::adamw) return;
  for (const auto& [name, shard] : parameters) {
    state_.emplace("m_" + name, device_.zeros(shard.extents(), shard.dtype()));
    state_.emplace("v_" + name, device_.zeros(shard.extents(), shard.dtype()));
  }
}

void ShardedOptimizer::step(const TensorMap& parameters, const TensorMap& gradients) {
  ++steps_;
  for (const auto& [name, shard] : parameters) {
    const auto grad = gradients.find(gradient_name(name));
    check(grad != gradients.end(), fmt::format("no gradient for parameter '{}'", name));
    Tensor p = shard;  // a handle onto the model's tensor
    if (config_.kind == OptimizerKind::sgd) {
      Tensor step = device_.empty(p.extents(), p.dtype());
      device_.copy(grad->second, step);
      device_.scale(step, -config_.learning_rate);
      device_.add_inplace(p, step);
      continue;
    }
    const AdamWStep s{.learning_rate = config_.learning_rate,
                      .beta1 = config_.beta1,
                      .beta2 = config_.beta2,
                      .eps = config_.eps,
                      .weight_decay = decays(p.extents()) ? config_.weight_decay : 0.0,
                      .step = steps_};
    Tensor m = state_.at("m_" + name), v = state_.at("v_" + name);
    device_.adamw_update(p, grad->second, m, v, s);
  }
}

}  // namespace tplab
