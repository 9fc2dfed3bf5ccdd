/// @file
/// The reference GPT: the model's own parts around the blocks, forward and backward.
#include "tplab/reference/gpt.hpp"

#include <cmath>

namespace tplab::reference {
namespace {

/// What backward needs from forward.
template <typename T>
struct GptActivations {
  std::vector<Matrix<T>> x;  // x[l]: the input of block l; x[L]: the last block's output
  Matrix<T> normed;          // LN_f(x[L])
  Matrix<T> logits;          // [m, V]
};

/// `dropout` for block l.
Dropout layer_dropout(Dropout dropout, std::size_t l) {
  dropout.layer = static_cast<std::uint32_t>(l);
  return dropout;
}

template <typename T>
GptActivations<T> forward(const GptShape& shape, const GptParams<T>& p,
                          const std::vector<std::int64_t>& ids, const Dropout& dropout) {
  const std::int64_t m = shape.block.tokens(), s = shape.block.s, h = shape.block.h;
  const Matrix<T> positions = sinusoidal_positions<T>(s, h);
  GptActivations<T> f;
  Matrix<T> x0(m, h);
  for (std::int64_t t = 0; t < m; ++t) {
    x0.row(t) = p.embedding.row(ids[static_cast<std::size_t>(t)]) + positions.row(t % s);
  }
  f.x.push_back(std::move(x0));
  for (std::size_t l = 0; l < p.blocks.size(); ++l) {
    f.x.push_back(block_forward(shape.block, f.x.back(), p.blocks[l], layer_dropout(dropout, l)));
  }
  f.normed = layernorm_forward(f.x.back(), p.lnf_gamma, p.lnf_beta);
  // [m, h] x [h, V] -> [m, V]
  f.logits = linear_forward(f.normed, p.w_head, p.b_head);
  return f;
}

}  // namespace

template <typename T>
Matrix<T> sinusoidal_positions(std::int64_t s, std::int64_t h) {
  Matrix<T> pe(s, h);
  for (std::int64_t p = 0; p < s; ++p) {
    for (std::int64_t i = 0; 2 * i < h; ++i) {
      const double w = std::pow(10000.0, -static_cast<double>(2 * i) / static_cast<double>(h));
      pe(p, 2 * i) = static_cast<T>(std::sin(static_cast<double>(p) * w));
      if (2 * i + 1 < h) pe(p, 2 * i + 1) = static_cast<T>(std::cos(static_cast<double>(p) * w));
    }
  }
  return pe;
}

template <typename T>
T cross_entropy(const Matrix<T>& logits, const std::vector<std::int64_t>& targets,
                Matrix<T>* dlogits) {
  const Eigen::Index m = logits.rows();
  // Subtracting each row's maximum keeps exp from overflowing and changes nothing else.
  const Vector<T> max = logits.rowwise().maxCoeff();
  const Matrix<T> shifted = logits.colwise() - max;
  const Matrix<T> e = shifted.array().exp().matrix();
  const Vector<T> sum = e.rowwise().sum();
  T loss = 0;
  for (Eigen::Index t = 0; t < m; ++t) {
    loss += std::log(sum(t)) - shifted(t, targets[static_cast<std::size_t>(t)]);
  }
  if (dlogits != nullptr) {
    // d/dlogits of log(sum exp) - logit[target], averaged: (softmax - onehot) / m
    *dlogits = e.array().colwise() / sum.array();
    for (Eigen::Index t = 0; t < m; ++t) (*dlogits)(t, targets[static_cast<std::size_t>(t)]) -= 1;
    *dlogits /= static_cast<T>(m);
  }
  return loss / static_cast<T>(m);
}

template <typename T>
GptResult<T> gpt_forward_backward(const GptShape& shape, const GptParams<T>& p,
                                  const std::vector<std::int64_t>& ids,
                                  const std::vector<std::int64_t>& targets,
                                  const Dropout& dropout) {
  GptActivations<T> f = forward(shape, p, ids, dropout);
  GptResult<T> r;
  GptParams<T>& g = r.grads;
  Matrix<T> dlogits;
  r.loss = cross_entropy(f.logits, targets, &dlogits);

  Matrix<T> dnormed, dx;
  linear_backward(f.normed, p.w_head, dlogits, dnormed, g.w_head, g.b_head);
  layernorm_backward(f.x.back(), p.lnf_gamma, dnormed, dx, g.lnf_gamma, g.lnf_beta);
  g.blocks.resize(p.blocks.size());
  for (std::size_t l = p.blocks.size(); l-- > 0;) {
    BlockResult<T> block =
        block_forward_backward(shape.block, f.x[l], p.blocks[l], dx, layer_dropout(dropout, l));
    g.blocks[l] = std::move(block.grads);
    dx = std::move(block.dx);
  }
  // Each token adds its gradient to the row of its id; the positions are fixed.
  g.embedding = Matrix<T>::Zero(p.embedding.rows(), p.embedding.cols());
  for (Eigen::Index t = 0; t < dx.rows(); ++t) {
    g.embedding.row(ids[static_cast<std::size_t>(t)]) += dx.row(t);
  }
  return r;
}

template <typename T>
T gpt_loss(const GptShape& shape, const GptParams<T>& params, const std::vector<std::int64_t>& ids,
           const std::vector<std::int64_t>& targets, const Dropout& dropout) {
  return cross_entropy<T>(forward(shape, params, ids, dropout).logits, targets, nullptr);
}

template Matrix<float> sinusoidal_positions(std::int64_t, std::int64_t);
template Matrix<double> sinusoidal_positions(std::int64_t, std::int64_t);
template float cross_entropy(const Matrix<float>&, const std::vector<std::int64_t>&,
                             Matrix<float>*);
template double cross_entropy(const Matrix<double>&, const std::vector<std::int64_t>&,
                              Matrix<double>*);
template GptResult<float> gpt_forward_backward(const GptShape&, const GptParams<float>&,
                                               const std::vector<std::int64_t>&,
                                               const std::vector<std::int64_t>&, const Dropout&);
template GptResult<double> gpt_forward_backward(const GptShape&, const GptParams<double>&,
                                                const std::vector<std::int64_t>&,
                                                const std::vector<std::int64_t>&, const Dropout&);
template float gpt_loss(const GptShape&, const GptParams<float>&, const std::vector<std::int64_t>&,
                        const std::vector<std::int64_t>&, const Dropout&);
template double gpt_loss(const GptShape&, const GptParams<double>&,
                         const std::vector<std::int64_t>&, const std::vector<std::int64_t>&,
                         const Dropout&);

}  // namespace tplab::reference
