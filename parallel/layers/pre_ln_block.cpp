#include "layers/pre_ln_block.hpp"

#include "scheme/block_shape.hpp"

namespace tplab {

PreLnBlock::PreLnBlock(Device& device, std::unique_ptr<LayerNorm> ln1,
                       std::unique_ptr<Sublayer> attention, std::unique_ptr<LayerNorm> ln2,
                       std::unique_ptr<Sublayer> mlp)
    : device_(device),
      ln1_(std::move(ln1)),
      attention_(std::move(attention)),
      ln2_(std::move(ln2)),
      mlp_(std::move(mlp)) {}

Tensor PreLnBlock::forward(const Tensor& x) {
  Tensor x1 = attention_->forward(ln1_->forward(x));
  device_.add_inplace(x1, x);  // x1 = x + Attention(LN1(x))
  Tensor y = mlp_->forward(ln2_->forward(x1));
  device_.add_inplace(y, x1);  // y = x1 + MLP(LN2(x1))
  return y;
}

Tensor PreLnBlock::backward(const Tensor& dy) {
  // dy reaches x1 twice: through the residual and through the MLP branch.
  Tensor dx1 = ln2_->backward(mlp_->backward(dy));
  device_.add_inplace(dx1, dy);
  Tensor dx = ln1_->backward(attention_->backward(dx1));
  device_.add_inplace(dx, dx1);
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

std::size_t PreLnBlock::saved_bytes() const {
  // The residual additions need nothing from forward.
  return ln1_->saved_bytes() + attention_->saved_bytes() + ln2_->saved_bytes() +
         mlp_->saved_bytes();
}

TensorMap SublayerModule::gradients() const {
  TensorMap out;
  sublayer_->collect_gradients(out);
  return out;
}

}  // namespace tplab
