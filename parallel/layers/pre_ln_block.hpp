/// @file
/// PreLnBlock: the block's skeleton, the same for every scheme.
#pragma once

#include <memory>

#include "layers/block_dropout.hpp"
#include "layers/layernorm.hpp"
#include "layers/sublayer.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/recompute.hpp"

namespace tplab {

/// x1 = x + D_attn(Attention(LN1(x))),  y = x1 + D_mlp(MLP(LN2(x1))).
///
/// A scheme supplies its LayerNorms (with the groups its layout needs) and its two
/// sublayers; residuals are local because every sublayer returns its input's layout. D is
/// dropout on this rank's block of the sublayer's output (none without `dropout`), its mask
/// drawn again in backward. With Recompute::full the block keeps only x: its sublayers let go
/// of what they kept, and backward runs forward again, with the draw forward used, before
/// walking back. Backward lets go of everything forward kept once it has read it, so that
/// between steps a block holds its parameters and gradients alone.
class PreLnBlock final : public ParallelModule {
 public:
  /// The block from its two LayerNorms and two sublayers.
  PreLnBlock(Device& device, std::unique_ptr<LayerNorm> ln1, std::unique_ptr<Sublayer> attention,
             std::unique_ptr<LayerNorm> ln2, std::unique_ptr<Sublayer> mlp,
             std::shared_ptr<BlockDropout> dropout = nullptr,
             Recompute recompute = Recompute::none);

  Tensor forward(const Tensor& x) override;
  Tensor backward(const Tensor& dy) override;
  TensorMap gradients() const override;
  void set_dropout_draw(DropoutDraw draw) override;

 private:
  Tensor run_forward(const Tensor& x);
  void drop(Tensor& x, DropoutSite site);
  void forget();

  Device& device_;
  std::unique_ptr<LayerNorm> ln1_;
  std::unique_ptr<Sublayer> attention_;
  std::unique_ptr<LayerNorm> ln2_;
  std::unique_ptr<Sublayer> mlp_;
  std::shared_ptr<BlockDropout> dropout_;
  Recompute recompute_;
  DropoutDraw draw_;  // the draw forward used, replayed by backward
  Tensor x_;          // the block's input, kept with Recompute::full
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
