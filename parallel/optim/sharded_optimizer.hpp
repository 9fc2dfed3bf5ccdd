/// @file
/// ShardedOptimizer: SGD or AdamW on the parameter shards one rank holds.
#pragma once

#include <cstdint>
#include <string_view>

#include "device/device.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab {

/// The update rule.
enum class OptimizerKind { sgd, adamw };

/// The optimizer and its hyper-parameters; the defaults are GPT-2's and Megatron-LM's
/// (beta2 0.95, weight decay 0.1).
struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::sgd;  ///< sgd or adamw
  double learning_rate = 0.3;               ///< lr of either
  double beta1 = 0.9;                       ///< AdamW's decay of its first moment
  double beta2 = 0.95;                      ///< AdamW's decay of its second moment
  double eps = 1e-8;                        ///< AdamW's term beside sqrt(v_hat)
  double weight_decay = 0.1;                ///< AdamW's decoupled decay, on matrices only
};

/// "sgd" or "adamw".
std::string_view optimizer_name(OptimizerKind kind);

/// True when AdamW decays the parameter with these extents: matrices (the weights and the
/// embedding) decay, vectors (biases, LayerNorm's gamma and beta) do not, as Megatron-LM and
/// nanoGPT choose. A shard has the number of dimensions of its parameter, so every rank that
/// holds a piece of a parameter decides alike.
bool decays(const Extents& extents);

/// The optimizer of one rank. Its state is sharded exactly as the parameters: AdamW keeps its
/// two moments m and v as tensors of each shard's extents and dtype, on the shard's device, so
/// a rank holds the state of what it holds and no more. Ranks that hold the same shard with the
/// same gradient bits make the same update bits, so replicas stay identical.
class ShardedOptimizer {
 public:
  /// The state for `parameters` (zeros), by name.
  ShardedOptimizer(Device& device, const TensorMap& parameters, const OptimizerConfig& config);

  /// One step on every shard of `parameters` (handles onto the model's tensors, updated in
  /// place) with its gradient "d_<name>" in `gradients`:
  ///   sgd:   p -= lr g
  ///   adamw: OptimizerOps::adamw_update, t = the number of steps taken so far
  void step(const TensorMap& parameters, const TensorMap& gradients);

  /// AdamW's moments by name ("m_<parameter>", "v_<parameter>"); empty for SGD.
  const TensorMap& state() const { return state_; }
  /// Steps taken.
  std::int64_t steps() const { return steps_; }

 private:
  Device& device_;
  OptimizerConfig config_;
  TensorMap state_;
  std::int64_t steps_ = 0;
};

}  // namespace tplab
