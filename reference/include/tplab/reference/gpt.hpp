/// @file
/// The single-device oracle of the tiny GPT: embedding, L blocks, final LayerNorm, LM head and
/// cross-entropy, forward and backward, in plain Eigen on whole matrices.
///
///     x0     = E[ids] + PE                 E [V, h]; PE the fixed sinusoid, [s, h] per sequence
///     x_l+1  = block_l(x_l)                l = 0..L-1 (block.hpp)
///     logits = LN_f(x_L) W_head + b_head   W_head [h, V], b_head [V]
///     loss   = mean over the m tokens of log(sum_v exp(logits[t, v])) - logits[t, target_t]
///
/// Like block.hpp it shares no code with parallel/.
#pragma once

#include <cstdint>
#include <vector>

#include "tplab/reference/block.hpp"

namespace tplab::reference {

/// The model's size: its blocks' shape, V and L.
struct GptShape {
  Shape block;              ///< b, s, h, heads
  std::int64_t vocab = 0;   ///< V
  std::int64_t layers = 0;  ///< L
};

/// Every parameter of the model. The same struct holds their gradients.
template <typename T>
struct GptParams {
  Matrix<T> embedding;                 ///< E [V, h]
  std::vector<BlockParams<T>> blocks;  ///< L blocks
  Vector<T> lnf_gamma;                 ///< [h]
  Vector<T> lnf_beta;                  ///< [h]
  Matrix<T> w_head;                    ///< [h, V]
  Vector<T> b_head;                    ///< [V]
};

/// The mean loss of one batch and the gradient of every parameter.
template <typename T>
struct GptResult {
  T loss = 0;          ///< mean cross-entropy over the m tokens
  GptParams<T> grads;  ///< d loss / d parameter
};

/// The sinusoidal position table [s, h]: PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i) with
/// w_i = 10000^(-2i/h).
template <typename T>
Matrix<T> sinusoidal_positions(std::int64_t s, std::int64_t h);

/// Mean cross-entropy of rows of logits [m, V] against targets [m]; writes its gradient with
/// respect to the logits into `dlogits` when given.
template <typename T>
T cross_entropy(const Matrix<T>& logits, const std::vector<std::int64_t>& targets,
                Matrix<T>* dlogits);

/// Forward and backward of the whole model for token ids and targets of the m tokens
/// (token-major: sequence by sequence). Block l drops with `dropout`, its layer set to l.
template <typename T>
GptResult<T> gpt_forward_backward(const GptShape& shape, const GptParams<T>& params,
                                  const std::vector<std::int64_t>& ids,
                                  const std::vector<std::int64_t>& targets,
                                  const Dropout& dropout = {});

/// Forward only: the mean loss.
template <typename T>
T gpt_loss(const GptShape& shape, const GptParams<T>& params, const std::vector<std::int64_t>& ids,
           const std::vector<std::int64_t>& targets, const Dropout& dropout = {});

}  // namespace tplab::reference
