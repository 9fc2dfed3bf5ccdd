#include "layers/pre_ln_block.hpp"

#include "layers/finite_check.hpp"
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
  check_finite(device_, x, "block input x");
  const Tensor a = ln1_->forward(x);
  check_finite(device_, a, "LN1 output (forward)");
  Tensor x1 = attention_->forward(a);
  check_finite(device_, x1, "attention output (forward)");
  device_.add_inplace(x1, x);  // x1 = x + Attention(LN1(x))
  const Tensor m = ln2_->forward(x1);
  check_finite(device_, m, "LN2 output (forward)");
  Tensor y = mlp_->forward(m);
  check_finite(device_, y, "MLP output (forward)");
  device_.add_inplace(y, x1);  // y = x1 + MLP(LN2(x1))
  return y;
}

Tensor PreLnBlock::backward(const Tensor& dy) {
  check_finite(device_, dy, "output gradient dy");
  const Tensor dm = mlp_->backward(dy);
  check_finite(device_, dm, "MLP input gradient (backward)");
  // dy reaches x1 twice: through the residual and through the MLP branch.
  Tensor dx1 = ln2_->backward(dm);
  check_finite(device_, dx1, "LN2 input gradient (backward)");
  device_.add_inplace(dx1, dy);
  const Tensor da = attention_->backward(dx1);
  check_finite(device_, da, "attention input gradient (backward)");
  Tensor dx = ln1_->backward(da);
  check_finite(device_, dx, "LN1 input gradient (backward)");
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

TensorMap SublayerModule::gradients() const {
  TensorMap out;
  sublayer_->collect_gradients(out);
  return out;
}

}  // namespace tplab
