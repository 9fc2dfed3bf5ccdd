/// @file
/// Multi-head causal self-attention on whole [m, h] matrices; internal to the reference.
#pragma once

#include <vector>

#include "tplab/reference/block.hpp"

namespace tplab::reference::detail {

/// ctx = softmax(q_i k_i^T / sqrt(h/n) + causal) v_i for every batch and head i. Head i owns
/// columns [i d, (i+1) d) of q, k, v with d = h/n; batch j owns rows [j s, (j+1) s).
/// probs receives the [s, s] probabilities of each (batch, head), index batch * n + head,
/// for the backward, before dropout; the dropped ones, D(probs), multiply v.
template <typename T>
Matrix<T> attention_forward(const Shape& shape, const Matrix<T>& q, const Matrix<T>& k,
                            const Matrix<T>& v, std::vector<Matrix<T>>& probs,
                            const Dropout& dropout);

/// Gradients of attention_forward with respect to q, k and v, given dctx ([m, h]).
template <typename T>
void attention_backward(const Shape& shape, const Matrix<T>& q, const Matrix<T>& k,
                        const Matrix<T>& v, const std::vector<Matrix<T>>& probs,
                        const Matrix<T>& dctx, Matrix<T>& dq, Matrix<T>& dk, Matrix<T>& dv,
                        const Dropout& dropout);

}  // namespace tplab::reference::detail
