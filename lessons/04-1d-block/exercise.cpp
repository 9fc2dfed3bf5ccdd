// Lesson 04 exercise: assemble 1D attention from the library's column- and row-parallel linears,
// then the whole pre-LN block with its two residuals. Fill in the TODO blocks, then run
// ./tplab lesson check 4. README.md explains the idea; ./tplab lesson hint 4 helps.
#include "lessons/common/exercise.hpp"

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

  Tensor forward(const Tensor& a) override {
    // TODO: a -> f (copy_to_tp_.forward, which keeps a) -> q, k, v = query_/key_/value_.apply
    //                                                              [m, h] -> [m, h/t]
    //       -> ctx = core_.forward(q, k, v)                        [m, h/t]
    //       -> projection_.forward(ctx)      [m, h/t] x [h/t, h] -> [m, h], all-reduced (g)
    (void)a;
    TPLAB_TODO();
  }

  Tensor backward(const Tensor& dout) override {
    // TODO: dout -> projection_.backward -> dctx [m, h/t] -> core_.backward(dctx, dq, dk, dv)
    //       -> query_/key_/value_.input_grad each give a partial dA [m, h]: add the three
    //       (device_.add_inplace); query_/key_/value_.weight_grads(a, dq) and so on need the
    //       input a that f kept (copy_to_tp_.input_for_backward().wait()); then f's backward
    //       sums the partials of all ranks (copy_to_tp_.backward(std::move(da)).wait()).
    (void)dout;
    (void)device_;
    TPLAB_TODO();
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

  Tensor forward(const Tensor& x) override {
    // TODO: x1 = x + attention_(ln1_(x)),  y = x1 + mlp_(ln2_(x1))     all [m, h], replicated
    //       (the sublayers return fresh tensors: add the residual into them with add_inplace)
    (void)x;
    TPLAB_TODO();
  }

  Tensor backward(const Tensor& dy) override {
    // TODO: dy reaches x1 twice, through the MLP branch and through the residual:
    //       dx1 = ln2_.backward(mlp_.backward(dy)) + dy
    //       dx  = ln1_.backward(attention_->backward(dx1)) + dx1
    (void)dy;
    (void)device_;
    TPLAB_TODO();
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
