/// @file
/// ShardedOptimizer: SGD or AdamW on the parameter shards one rank holds.
#pragma once

#include <cstdint>
#include <string>
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
  /// bf16: keep the f32 masters from step to step (false: each step's is made again from the
  /// bf16 parameter, as an optimizer without masters updates it, so that the updates bf16
  /// rounds away are lost, to show what the masters keep).
  bool masters = true;
};

/// "sgd" or "adamw".
std::string_view optimizer_name(OptimizerKind kind);

/// True when AdamW decays the parameter with these extents: matrices (the weights and the
/// embedding) decay, vectors (biases, LayerNorm's gamma and beta) do not, as Megatron-LM and
/// nanoGPT choose. A shard has the number of dimensions of its parameter, so every rank that
/// holds a piece of a parameter decides alike.
bool decays(const Extents& extents);

/// The dtype the optimizer updates a parameter of `dtype` in: f32 master weights for bf16
/// (Micikevicius et al. 2018; Megatron-LM's bf16 optimizer), the parameter's own otherwise.
DType master_dtype(DType dtype);

/// `tensors` in `dtype`: new tensors of this device, each element rounded once to the nearest
/// value of `dtype` (ties to even), or the same handles where a tensor already is of it. The
/// values pass through the host (download, upload), so it costs a copy each way on a GPU.
TensorMap converted(Device& device, const TensorMap& tensors, DType dtype);

/// The optimizer of one rank. Its state is sharded exactly as the parameters: AdamW keeps its
/// two moments m and v as tensors of each shard's extents, on the shard's device, so a rank
/// holds the state of what it holds and no more. Ranks that hold the same shard with the same
/// gradient bits make the same update bits, so replicas stay identical.
///
/// bf16 parameters are trained as the frameworks train them: the optimizer keeps an f32 master
/// copy of every shard (made from the bf16 shard, as Megatron-LM makes it), its moments in f32,
/// and takes gradients in f32 (converted(): the trainer widens the model's bf16 gradients before
/// reducing and clipping them); each step updates the master and rounds it into the model's
/// bf16 shard. Small updates that bf16 would round away accumulate in the master.
class ShardedOptimizer {
 public:
  /// The state for `parameters` (zeros, and the masters of bf16 shards), by name.
  ShardedOptimizer(Device& device, const TensorMap& parameters, const OptimizerConfig& config);

  /// One step on every shard of `parameters` (handles onto the model's tensors, updated in
  /// place) with its gradient "d_<name>" in `gradients`, in master_dtype() of the parameter:
  ///   sgd:   p -= lr g
  ///   adamw: OptimizerOps::adamw_update, t = the number of steps taken so far
  /// on the master where there is one, which is then rounded into the parameter.
  void step(const TensorMap& parameters, const TensorMap& gradients);

  /// AdamW's moments by name ("m_<parameter>", "v_<parameter>"); empty for SGD.
  const TensorMap& state() const { return state_; }
  /// The f32 masters of bf16 parameters, by the parameter's name; empty for f64 and f32.
  const TensorMap& masters() const { return masters_; }
  /// Steps taken.
  std::int64_t steps() const { return steps_; }

 private:
  /// One step of the rule on `p` (a parameter or a master) with its gradient g.
  void update(const std::string& name, Tensor& p, const Tensor& g);

  Device& device_;
  OptimizerConfig config_;
  TensorMap state_;
  TensorMap masters_;
  std::int64_t steps_ = 0;
};

}  // namespace tplab
