/// @file
/// The single-device oracle: one pre-LN GPT block, forward and backward, in plain Eigen.
///
/// Every parallel scheme in tplab is checked against this file. It is written on whole
/// matrices, independently of parallel/, so that a bug in the parallel library cannot be
/// repeated here and cancel out. Notation: b batch, s sequence, h hidden, n heads, m = b*s
/// tokens; activations are [m, h] row-major (token-major), weights are stored [in, out].
///
///     a   = LN1(x)
///     q   = a Wq + bq,  k = a Wk + bk,  v = a Wv + bv
///     ctx = softmax(q_i k_i^T / sqrt(h/n) + causal) v_i   for each batch and head i
///     x1  = x + ctx Wo + bo
///     mid = LN2(x1)
///     y   = x1 + gelu_tanh(mid W1 + b1) W2 + b2
#pragma once

#include <Eigen/Dense>
#include <cstdint>

namespace tplab::reference {

/// Row-major dynamic matrix, the layout of every activation and weight.
template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Column vector for biases, LayerNorm parameters and per-row statistics.
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

/// The global problem size of one block.
struct Shape {
  std::int64_t b = 0;                            ///< batch
  std::int64_t s = 0;                            ///< sequence length
  std::int64_t h = 0;                            ///< hidden size
  std::int64_t heads = 0;                        ///< attention heads; h must be divisible by heads
  std::int64_t tokens() const { return b * s; }  ///< m = b*s
  std::int64_t head_dim() const { return h / heads; }  ///< h/n
};

/// LayerNorm epsilon used everywhere in tplab.
inline constexpr double kLayerNormEps = 1e-5;

/// Parameters of one block. The same struct holds their gradients.
template <typename T>
struct BlockParams {
  Vector<T> ln1_gamma;  ///< [h]
  Vector<T> ln1_beta;   ///< [h]
  Matrix<T> wq;         ///< [h, h]
  Matrix<T> wk;         ///< [h, h]
  Matrix<T> wv;         ///< [h, h]
  Matrix<T> wo;         ///< [h, h]
  Vector<T> bq;         ///< [h]
  Vector<T> bk;         ///< [h]
  Vector<T> bv;         ///< [h]
  Vector<T> bo;         ///< [h]
  Vector<T> ln2_gamma;  ///< [h]
  Vector<T> ln2_beta;   ///< [h]
  Matrix<T> w1;         ///< [h, 4h]
  Vector<T> b1;         ///< [4h]
  Matrix<T> w2;         ///< [4h, h]
  Vector<T> b2;         ///< [h]
};

/// Dropout in GPT's three places: on the attention probabilities after softmax, and on each
/// sublayer's output before its residual add:
///
///     ctx = D_probs(softmax(...)) v_i,  x1 = x + D_attn(ctx Wo + bo),  y = x1 + D_mlp(...)
///
/// D multiplies a kept element by 1/(1-p) and a dropped one by 0. Element e of a site's global
/// tensor (row-major: [b*n, s, s] for the probabilities, index (batch*n + head)*s*s + i*s + j;
/// [m, h] for the outputs) is kept when word e mod 4 of Philox4x32-10(counter, key) is at least
/// round(p 2^32), with key = (seed mod 2^32, seed / 2^32) and counter = (e/4 mod 2^32,
/// e/4 / 2^32, step, 4 layer + site), site 0, 1, 2 in the order above (reference/src/dropout.cpp).
struct Dropout {
  double p = 0;             ///< probability of dropping; 0: no dropout
  std::uint64_t seed = 0;   ///< the masks' key
  std::uint32_t step = 0;   ///< training step
  std::uint32_t layer = 0;  ///< the block's index in the model
};

/// Everything forward and backward produce.
template <typename T>
struct BlockResult {
  Matrix<T> y;           ///< [m, h] block output
  Matrix<T> dx;          ///< [m, h] gradient of the block input
  BlockParams<T> grads;  ///< gradient of every parameter
};

/// Forward of the block, then backward from the output gradient dy ([m, h]).
template <typename T>
BlockResult<T> block_forward_backward(const Shape& shape, const Matrix<T>& x,
                                      const BlockParams<T>& params, const Matrix<T>& dy,
                                      const Dropout& dropout = {});

/// Forward only.
template <typename T>
Matrix<T> block_forward(const Shape& shape, const Matrix<T>& x, const BlockParams<T>& params,
                        const Dropout& dropout = {});

// ---- the pieces, public so that they can be tested by hand ----

/// y = x W + b (x [m, in], W [in, out], b [out]).
template <typename T>
Matrix<T> linear_forward(const Matrix<T>& x, const Matrix<T>& w, const Vector<T>& bias);

/// Gradients of y = x W + b: dx = dy W^T, dW = x^T dy, db = column sums of dy.
template <typename T>
void linear_backward(const Matrix<T>& x, const Matrix<T>& w, const Matrix<T>& dy, Matrix<T>& dx,
                     Matrix<T>& dw, Vector<T>& db);

/// LayerNorm over each row: (x - mean) / sqrt(var + eps) * gamma + beta (biased variance).
template <typename T>
Matrix<T> layernorm_forward(const Matrix<T>& x, const Vector<T>& gamma, const Vector<T>& beta);

/// Gradients of layernorm_forward.
template <typename T>
void layernorm_backward(const Matrix<T>& x, const Vector<T>& gamma, const Matrix<T>& dy,
                        Matrix<T>& dx, Vector<T>& dgamma, Vector<T>& dbeta);

/// Row softmax of scores * scale with a causal mask (column j > row i gets probability 0).
template <typename T>
Matrix<T> causal_softmax(const Matrix<T>& scores, T scale);

/// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <typename T>
Matrix<T> gelu_tanh(const Matrix<T>& x);

/// Derivative of gelu_tanh at each element.
template <typename T>
Matrix<T> gelu_tanh_derivative(const Matrix<T>& x);

}  // namespace tplab::reference
