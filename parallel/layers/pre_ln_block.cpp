#include "layers/pre_ln_block.hpp"

#include "layers/finite_check.hpp"
#include "scheme/block_shape.hpp"

namespace tplab {

PreLnBlock::PreLnBlock(Device& device, std::unique_ptr<LayerNorm> ln1,
                       std::unique_ptr<Sublayer> attention, std::unique_ptr<LayerNorm> ln2,
                       std::unique_ptr<Sublayer> mlp, std::shared_ptr<BlockDropout> dropout,
                       Recompute recompute)
    : device_(device),
      ln1_(std::move(ln1)),
      attention_(std::move(attention)),
      ln2_(std::move(ln2)),
      mlp_(std::move(mlp)),
      dropout_(std::move(dropout)),
      recompute_(recompute) {}

void PreLnBlock::set_dropout_draw(DropoutDraw draw) {
  if (dropout_ != nullptr) dropout_->set_draw(draw);
}

void PreLnBlock::drop(Tensor& x, DropoutSite site) {
  if (dropout_ != nullptr && dropout_->active()) {
    device_.dropout(x, dropout_->output_mask(site, draw_));
  }
}

void PreLnBlock::forget() {
  ln1_->forget();
  attention_->forget();
  ln2_->forget();
  mlp_->forget();
}

Tensor PreLnBlock::forward(const Tensor& x) {
  if (dropout_ != nullptr) draw_ = dropout_->draw();
  Tensor y = run_forward(x);
  if (recompute_ == Recompute::full) {
    forget();
    x_ = x;
  }
  return y;
}

Tensor PreLnBlock::run_forward(const Tensor& x) {
  check_finite(device_, x, "block input x");
  const Tensor a = ln1_->forward(x);
  check_finite(device_, a, "LN1 output (forward)");
  Tensor x1 = attention_->forward(a);
  check_finite(device_, x1, "attention output (forward)");
  drop(x1, DropoutSite::attention_output);
  device_.add_inplace(x1, x);  // x1 = x + D(Attention(LN1(x)))
  const Tensor m = ln2_->forward(x1);
  check_finite(device_, m, "LN2 output (forward)");
  Tensor y = mlp_->forward(m);
  check_finite(device_, y, "MLP output (forward)");
  drop(y, DropoutSite::mlp_output);
  device_.add_inplace(y, x1);  // y = x1 + D(MLP(LN2(x1)))
  return y;
}

Tensor PreLnBlock::backward(const Tensor& dy) {
  check_finite(device_, dy, "output gradient dy");
  if (recompute_ == Recompute::full) {
    // forward again from the kept x, with the draw the first forward used (the attention core
    // reads it from the shared BlockDropout), so that every kept tensor is bit for bit the same
    const DropoutDraw now = dropout_ != nullptr ? dropout_->draw() : DropoutDraw{};
    set_dropout_draw(draw_);
    run_forward(x_);
    set_dropout_draw(now);
    x_ = Tensor();
  }
  Tensor dbranch = dy;  // through the MLP output's dropout, the same mask
  if (dropout_ != nullptr && dropout_->active()) {
    dbranch = device_.empty(dy.extents(), dy.dtype());
    device_.copy(dy, dbranch);
    drop(dbranch, DropoutSite::mlp_output);
  }
  const Tensor dm = mlp_->backward(dbranch);
  check_finite(device_, dm, "MLP input gradient (backward)");
  // dy reaches x1 twice: through the residual and through the MLP branch.
  Tensor dx1 = ln2_->backward(dm);
  check_finite(device_, dx1, "LN2 input gradient (backward)");
  device_.add_inplace(dx1, dy);
  Tensor dattention = dx1;  // through the attention output's dropout
  if (dropout_ != nullptr && dropout_->active()) {
    dattention = device_.empty(dx1.extents(), dx1.dtype());
    device_.copy(dx1, dattention);
    drop(dattention, DropoutSite::attention_output);
  }
  const Tensor da = attention_->backward(dattention);
  check_finite(device_, da, "attention input gradient (backward)");
  Tensor dx = ln1_->backward(da);
  check_finite(device_, dx, "LN1 input gradient (backward)");
  device_.add_inplace(dx, dx1);
  forget();  // backward has read what forward kept: as autograd frees saved tensors
  return dx;
}

TensorMap PreLnBlock::gradients() const {
  TensorMap out;
  out.emplace(gradient_name("ln1_gamma"), ln1_->gamma_grad());
  out.emplace(gradient_name("ln1_beta"), ln1_->beta_grad());
  out.emplace(gradient_name("ln2_gamma"), ln2_->gamma_grad());
  out.emplace(gradient_name("ln2_beta"), ln2_->beta_grad());
  attention_->collect_gradients(out);
  mlp_->collect_gradients(out);
  return out;
}

TensorMap SublayerModule::gradients() const {
  TensorMap out;
  sublayer_->collect_gradients(out);
  return out;
}

}  // namespace tplab
