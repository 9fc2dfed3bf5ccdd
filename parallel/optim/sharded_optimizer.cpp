/// @file
/// ShardedOptimizer: the state made beside each shard, and the step.
#include "optim/sharded_optimizer.hpp"

#include <fmt/format.h>

#include <vector>

#include "core/error.hpp"
#include "scheme/block_shape.hpp"

namespace tplab {

std::string_view optimizer_name(OptimizerKind kind) {
  return kind == OptimizerKind::sgd ? "sgd" : "adamw";
}

bool decays(const Extents& extents) {
  return extents.size() >= 2;
}

DType master_dtype(DType dtype) {
  return dtype == DType::bf16 ? DType::f32 : dtype;
}

namespace {

/// dst = src rounded to dst's dtype, through the host: f64 holds every f32 and bf16 exactly,
/// so the only rounding is upload's, to the nearest value of dst's dtype.
void convert_into(Device& device, const Tensor& src, Tensor& dst) {
  std::vector<double> values(static_cast<std::size_t>(src.numel()));
  device.download(src, values);
  device.upload(values, dst);
}

}  // namespace

TensorMap converted(Device& device, const TensorMap& tensors, DType dtype) {
  TensorMap out;
  for (const auto& [name, t] : tensors) {
    if (t.dtype() == dtype) {
      out.emplace(name, t);
      continue;
    }
    Tensor copy = device.empty(t.extents(), dtype);
    convert_into(device, t, copy);
    out.emplace(name, std::move(copy));
  }
  return out;
}

ShardedOptimizer::ShardedOptimizer(Device& device, const TensorMap& parameters,
                                   const OptimizerConfig& config)
    : device_(device), config_(config) {
  TensorMap bf16;
  for (const auto& [name, shard] : parameters) {
    if (shard.dtype() == DType::bf16) bf16.emplace(name, shard);
  }
  masters_ = converted(device_, bf16, DType::f32);
  if (config_.kind != OptimizerKind::adamw) return;
  for (const auto& [name, shard] : parameters) {
    const DType dtype = master_dtype(shard.dtype());
    state_.emplace("m_" + name, device_.zeros(shard.extents(), dtype));
    state_.emplace("v_" + name, device_.zeros(shard.extents(), dtype));
  }
}

void ShardedOptimizer::step(const TensorMap& parameters, const TensorMap& gradients) {
  // Every gradient present and of its update's dtype before anything moves.
  for (const auto& [name, shard] : parameters) {
    const auto grad = gradients.find(gradient_name(name));
    check(grad != gradients.end(), fmt::format("no gradient for parameter '{}'", name));
    const bool mastered = masters_.contains(name);
    check(grad->second.dtype() == master_dtype(shard.dtype()),
          fmt::format("the gradient of '{}' is {}, its {} is {}", name,
                      dtype_name(grad->second.dtype()), mastered ? "master" : "parameter",
                      dtype_name(master_dtype(shard.dtype()))));
  }
  ++steps_;
  for (const auto& [name, shard] : parameters) {
    const Tensor& grad = gradients.find(gradient_name(name))->second;
    const auto master = masters_.find(name);
    if (master == masters_.end()) {
      Tensor p = shard;  // a handle onto the model's tensor
      update(name, p, grad);
      continue;
    }
    if (!config_.masters) convert_into(device_, shard, master->second);  // nothing kept
    update(name, master->second, grad);
    Tensor model = shard;
    convert_into(device_, master->second, model);  // the one rounding to bf16
  }
}

void ShardedOptimizer::update(const std::string& name, Tensor& p, const Tensor& g) {
  if (config_.kind == OptimizerKind::sgd) {
    Tensor step = device_.empty(p.extents(), p.dtype());
    device_.copy(g, step);
    device_.scale(step, -config_.learning_rate);
    device_.add_inplace(p, step);
    return;
  }
  const AdamWStep s{.learning_rate = config_.learning_rate,
                    .beta1 = config_.beta1,
                    .beta2 = config_.beta2,
                    .eps = config_.eps,
                    .weight_decay = decays(p.extents()) ? config_.weight_decay : 0.0,
                    .step = steps_};
  Tensor m = state_.at("m_" + name), v = state_.at("v_" + name);
  device_.adamw_update(p, g, m, v, s);
}

}  // namespace tplab
