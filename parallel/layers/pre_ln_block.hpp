/// @file
/// PreLnBlock: the block's skeleton, the same for every scheme.
#pragma once

#include <memory>

#include "layers/layernorm.hpp"
#include "layers/sublayer.hpp"
#include "scheme/parallel_module.hpp"

namespace tplab {

/// x1 = x + Attention(LN1(x)),  y = x1 + MLP(LN2(x1)).
///
/// A scheme supplies its LayerNorms (with the groups its layout needs) and its two
/// sublayers; residuals are local because every sublayer returns its input's layout.
class PreLnBlock final : public ParallelModule {
 public:
  /// The block from its two LayerNorms and two sublayers.
  PreLnBlock(Device& device, std::unique_ptr<LayerNorm> ln1, std::unique_ptr<Sublayer> attention,
             std::unique_ptr<LayerNorm> ln2, std::unique_ptr<Sublayer> mlp);

  Tensor forward(const Tensor& x) override;
  Tensor backward(const Tensor& dy) override;
  TensorMap gradients() const override;

 private:
  Device& device_;
  std::unique_ptr<LayerNorm> ln1_;
  std::unique_ptr<Sublayer> attention_;
  std::unique_ptr<LayerNorm> ln2_;
  std::unique_ptr<Sublayer> mlp_;
};

/// A sublayer alone as a ParallelModule (the linear pair of the exact checks).
class SublayerModule final : public ParallelModule {
 public:
  /// Wraps `sublayer`.
  explicit SublayerModule(std::unique_ptr<Sublayer> sublayer) : sublayer_(std::move(sublayer)) {}
  Tensor forward(const Tensor& x) override { return sublayer_->forward(x); }
  Tensor backward(const Tensor& dy) override { return sublayer_->backward(dy); }
  TensorMap gradients() const override;

 private:
  std::unique_ptr<Sublayer> sublayer_;
};

}  // namespace tplab
