// Lesson 04, the answer: 1D attention assembled from the column- and row-parallel linears of
// lessons 01 and 02 with f and g of lesson 03, then the pre-LN block with its two residuals.
#include "layers/activation.hpp"
#include "layers/causal_attention.hpp"
#include "layers/layernorm.hpp"
#include "lesson.hpp"
#include "tp1d/column_parallel_linear.hpp"
#include "tp1d/conjugate_operators.hpp"
#include "tp1d/mlp_1d.hpp"
#include "tp1d/row_parallel_linear.hpp"

namespace tplab::lessons::block_1d {
namespace {

/// Attention on this rank's n/t heads. The layers are built for you from this rank's shards:
/// query_, key_, value_ hold Wq, Wk, Wv split by columns (whole heads), projection_ holds Wo
/// split by rows and ends in g.
class Attention final : public Sublayer {
 public:
  Attention(Device& device, Comm& tp, const BlockShape& shape, const TensorMap& p)
      : device_(device),
        copy_to_tp_(tp),
        query_(device, p.at("wq"), p.at("bq")),
        key_(device, p.at("wk"), p.at("bk")),
        value_(device, p.at("wv"), p.at("bv")),
        core_(device, shape.b, shape.heads / tp.size(), shape.head_dim()),
        projection_(device, tp, p.at("wo"), p.at("bo")) {}

  // The library's version: parallel/tp1d/attention_1d.cpp, Attention1D::forward.
  Tensor forward(const Tensor& a) override {
    const Tensor input = copy_to_tp_.forward(a);  // f: [m, h], whole on every rank, kept
    // [m, h] x [h, h/t] -> [m, h/t] each: this rank's n/t heads, whole
    const Tensor q = query_.apply(input);
    const Tensor k = key_.apply(input);
    const Tensor v = value_.apply(input);
    const Tensor ctx = core_.forward(q, k, v);  // [m, h/t]: heads are independent, no exchange
    return projection_.forward(ctx);            // [m, h/t] x [h/t, h] -> [m, h], all-reduced (g)
  }

  // The library's version: parallel/tp1d/attention_1d.cpp, Attention1D::backward.
  Tensor backward(const Tensor& dout) override {
    const Tensor dctx = projection_.backward(dout);  // [m, h] x [h/t, h]^T -> [m, h/t]
    Tensor dq, dk, dv;
    core_.backward(dctx, dq, dk, dv);  // [m, h/t] each
    // [m, h/t] x [h, h/t]^T -> [m, h] each: partial sums over this rank's heads
    Tensor da = query_.input_grad(dq);
    device_.add_inplace(da, key_.input_grad(dk));
    device_.add_inplace(da, value_.input_grad(dv));
    const Tensor input = copy_to_tp_.input_for_backward().wait();  // A [m, h], kept by f
    // [m, h]^T x [m, h/t] -> [h, h/t] each
    query_.weight_grads(input, dq);
    key_.weight_grads(input, dk);
    value_.weight_grads(input, dv);
    return copy_to_tp_.backward(std::move(da)).wait();  // f: the partials of every rank summed
  }

  void collect_gradients(TensorMap& out) const override {
    add_linear_gradients(out, "wq", "bq", query_);
    add_linear_gradients(out, "wk", "bk", key_);
    add_linear_gradients(out, "wv", "bv", value_);
    add_linear_gradients(out, "wo", "bo", projection_);
  }

 private:
  Device& device_;
  tp1d::CopyToTensorParallelRegion copy_to_tp_;  // f, which keeps A for the weight gradients
  tp1d::ColumnParallelLinear query_, key_, value_;
  CausalAttention core_;
  tp1d::RowParallelLinear projection_;
};

/// The pre-LN block of this rank. LayerNorm sees whole rows (no group); the MLP is the
/// library's Mlp1D from lesson 03.
class Block final : public ParallelModule {
 public:
  Block(Device& device, Comm& tp, const BlockShape& shape, const TensorMap& p)
      : device_(device),
        ln1_(device, nullptr, nullptr, shape.h, p.at("ln1_gamma"), p.at("ln1_beta")),
        attention_(make_attention(device, tp, shape, p)),
        ln2_(device, nullptr, nullptr, shape.h, p.at("ln2_gamma"), p.at("ln2_beta")),
        mlp_(device, tp, p, Activation::gelu) {}

  // The library's version: parallel/layers/pre_ln_block.cpp, PreLnBlock::forward.
  Tensor forward(const Tensor& x) override {
    Tensor x1 = attention_->forward(ln1_.forward(x));  // [m, h], replicated
    device_.add_inplace(x1, x);                        // x1 = x + Attention(LN1(x))
    Tensor y = mlp_.forward(ln2_.forward(x1));
    device_.add_inplace(y, x1);  // y = x1 + MLP(LN2(x1))
    return y;
  }

  // The library's version: parallel/layers/pre_ln_block.cpp, PreLnBlock::backward.
  Tensor backward(const Tensor& dy) override {
    // dy reaches x1 twice: through the MLP branch and through the residual.
    Tensor dx1 = ln2_.backward(mlp_.backward(dy));
    device_.add_inplace(dx1, dy);
    Tensor dx = ln1_.backward(attention_->backward(dx1));
    device_.add_inplace(dx, dx1);
    return dx;
  }

  TensorMap gradients() const override {
    TensorMap out;
    out.emplace("d_ln1_gamma", ln1_.gamma_grad());
    out.emplace("d_ln1_beta", ln1_.beta_grad());
    out.emplace("d_ln2_gamma", ln2_.gamma_grad());
    out.emplace("d_ln2_beta", ln2_.beta_grad());
    attention_->collect_gradients(out);
    mlp_.collect_gradients(out);
    return out;
  }

 private:
  Device& device_;
  LayerNorm ln1_;
  std::unique_ptr<Sublayer> attention_;
  LayerNorm ln2_;
  tp1d::Mlp1D mlp_;
};

}  // namespace

std::unique_ptr<Sublayer> make_attention(Device& device, Comm& tp, const BlockShape& shape,
                                         const TensorMap& p) {
  return std::make_unique<Attention>(device, tp, shape, p);
}

std::unique_ptr<ParallelModule> make_block(Device& device, Comm& tp, const BlockShape& shape,
                                           const TensorMap& p) {
  return std::make_unique<Block>(device, tp, shape, p);
}

}  // namespace tplab::lessons::block_1d
