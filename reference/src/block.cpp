#include "tplab/reference/block.hpp"

#include <utility>
#include <vector>

#include "attention.hpp"
#include "dropout.hpp"

namespace tplab::reference {
namespace {

/// What the backward needs from the forward, named after the formulas in block.hpp.
template <typename T>
struct Activations {
  Matrix<T> a;                   // LN1(x)
  Matrix<T> q, k, v;             // projections of a
  std::vector<Matrix<T>> probs;  // [s, s] attention probabilities per (batch, head)
  Matrix<T> ctx;                 // attention output before Wo
  Matrix<T> x1;                  // first residual stream
  Matrix<T> mid;                 // LN2(x1)
  Matrix<T> pre;                 // mid W1 + b1, the GELU input
  Matrix<T> act;                 // gelu_tanh(pre)
  Matrix<T> y;                   // block output
};

template <typename T>
Activations<T> forward(const Shape& shape, const Matrix<T>& x, const BlockParams<T>& p,
                       const Dropout& dropout) {
  Activations<T> f;
  f.a = layernorm_forward(x, p.ln1_gamma, p.ln1_beta);
  // [m, h] x [h, h] -> [m, h], three times
  f.q = linear_forward(f.a, p.wq, p.bq);
  f.k = linear_forward(f.a, p.wk, p.bk);
  f.v = linear_forward(f.a, p.wv, p.bv);
  f.ctx = detail::attention_forward(shape, f.q, f.k, f.v, f.probs, dropout);
  // [m, h] x [h, h] -> [m, h]
  f.x1 = linear_forward(f.ctx, p.wo, p.bo);
  detail::apply_dropout(dropout, detail::Site::attention, 0, f.x1);
  f.x1 += x;
  f.mid = layernorm_forward(f.x1, p.ln2_gamma, p.ln2_beta);
  // [m, h] x [h, 4h] -> [m, 4h]
  f.pre = linear_forward(f.mid, p.w1, p.b1);
  f.act = gelu_tanh(f.pre);
  // [m, 4h] x [4h, h] -> [m, h]
  f.y = linear_forward(f.act, p.w2, p.b2);
  detail::apply_dropout(dropout, detail::Site::mlp, 0, f.y);
  f.y += f.x1;
  return f;
}

}  // namespace

template <typename T>
Matrix<T> block_forward(const Shape& shape, const Matrix<T>& x, const BlockParams<T>& params,
                        const Dropout& dropout) {
  return forward(shape, x, params, dropout).y;
}

template <typename T>
BlockResult<T> block_forward_backward(const Shape& shape, const Matrix<T>& x,
                                      const BlockParams<T>& params, const Matrix<T>& dy,
                                      const Dropout& dropout) {
  Activations<T> f = forward(shape, x, params, dropout);
  BlockResult<T> r;
  BlockParams<T>& g = r.grads;

  // MLP sublayer, y = x1 + gelu(mid W1 + b1) W2 + b2, walked back from dy.
  Matrix<T> dact, dmid, dx1_ln;
  Matrix<T> dmlp = dy;  // through the MLP's dropout: its mask drawn again
  detail::apply_dropout(dropout, detail::Site::mlp, 0, dmlp);
  linear_backward(f.act, params.w2, dmlp, dact, g.w2, g.b2);
  const Matrix<T> dpre = dact.cwiseProduct(gelu_tanh_derivative(f.pre));
  linear_backward(f.mid, params.w1, dpre, dmid, g.w1, g.b1);
  layernorm_backward(f.x1, params.ln2_gamma, dmid, dx1_ln, g.ln2_gamma, g.ln2_beta);
  // The residual passes dy through to x1 untouched.
  const Matrix<T> dx1 = dy + dx1_ln;

  // Attention sublayer, x1 = x + attention(LN1(x)) Wo + bo.
  Matrix<T> dctx, dq, dk, dv;
  Matrix<T> dattention = dx1;  // through the attention output's dropout
  detail::apply_dropout(dropout, detail::Site::attention, 0, dattention);
  linear_backward(f.ctx, params.wo, dattention, dctx, g.wo, g.bo);
  detail::attention_backward(shape, f.q, f.k, f.v, f.probs, dctx, dq, dk, dv, dropout);
  // a feeds q, k and v, so its gradient is the sum of the three paths.
  Matrix<T> da_q, da_k, da_v;
  linear_backward(f.a, params.wq, dq, da_q, g.wq, g.bq);
  linear_backward(f.a, params.wk, dk, da_k, g.wk, g.bk);
  linear_backward(f.a, params.wv, dv, da_v, g.wv, g.bv);
  const Matrix<T> da = da_q + da_k + da_v;
  layernorm_backward(x, params.ln1_gamma, da, r.dx, g.ln1_gamma, g.ln1_beta);
  // x reaches x1 twice: through LN1 and attention, and directly through the residual.
  r.dx += dx1;

  r.y = std::move(f.y);
  return r;
}

template Matrix<float> block_forward(const Shape&, const Matrix<float>&, const BlockParams<float>&,
                                     const Dropout&);
template Matrix<double> block_forward(const Shape&, const Matrix<double>&,
                                      const BlockParams<double>&, const Dropout&);
template BlockResult<float> block_forward_backward(const Shape&, const Matrix<float>&,
                                                   const BlockParams<float>&, const Matrix<float>&,
                                                   const Dropout&);
template BlockResult<double> block_forward_backward(const Shape&, const Matrix<double>&,
                                                    const BlockParams<double>&,
                                                    const Matrix<double>&, const Dropout&);

}  // namespace tplab::reference
