#include "attention.hpp"

#include "dropout.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tplab::reference {

template <typename T>
Matrix<T> causal_softmax(const Matrix<T>& scores, T scale) {
  Matrix<T> p(scores.rows(), scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    // Query i may attend to keys 0..i only; the rest of the row stays exactly zero.
    const Eigen::Index visible = std::min(i + 1, scores.cols());
    auto row = p.row(i).head(visible);
    row = scores.row(i).head(visible) * scale;
    // Shifting by the row max keeps exp() from overflowing. Only visible entries count: a
    // large masked score must not push every visible exp() to zero.
    row.array() = (row.array() - row.maxCoeff()).exp();
    row /= row.sum();
    p.row(i).tail(scores.cols() - visible).setZero();
  }
  return p;
}

template Matrix<float> causal_softmax(const Matrix<float>&, float);
template Matrix<double> causal_softmax(const Matrix<double>&, double);

namespace detail {

template <typename T>
Matrix<T> attention_forward(const Shape& shape, const Matrix<T>& q, const Matrix<T>& k,
                            const Matrix<T>& v, std::vector<Matrix<T>>& probs,
                            const Dropout& dropout) {
  const Eigen::Index s = shape.s;
  const Eigen::Index d = shape.head_dim();
  const T scale = T(1) / std::sqrt(static_cast<T>(d));

  Matrix<T> ctx(q.rows(), q.cols());
  Matrix<T> scores(s, s);
  probs.resize(static_cast<std::size_t>(shape.b * shape.heads));
  for (Eigen::Index batch = 0; batch < shape.b; ++batch) {
    for (Eigen::Index head = 0; head < shape.heads; ++head) {
      const auto q_i = q.block(batch * s, head * d, s, d);
      const auto k_i = k.block(batch * s, head * d, s, d);
      const auto v_i = v.block(batch * s, head * d, s, d);
      Matrix<T>& p = probs[static_cast<std::size_t>(batch * shape.heads + head)];
      // [s, d] x [d, s] -> [s, s]
      scores.noalias() = q_i * k_i.transpose();
      p = causal_softmax(scores, scale);
      Matrix<T> dropped = p;
      apply_dropout(dropout, Site::probs, (batch * shape.heads + head) * s * s, dropped);
      // [s, s] x [s, d] -> [s, d]
      ctx.block(batch * s, head * d, s, d).noalias() = dropped * v_i;
    }
  }
  return ctx;
}

template <typename T>
void attention_backward(const Shape& shape, const Matrix<T>& q, const Matrix<T>& k,
                        const Matrix<T>& v, const std::vector<Matrix<T>>& probs,
                        const Matrix<T>& dctx, Matrix<T>& dq, Matrix<T>& dk, Matrix<T>& dv,
                        const Dropout& dropout) {
  const Eigen::Index s = shape.s;
  const Eigen::Index d = shape.head_dim();
  const T scale = T(1) / std::sqrt(static_cast<T>(d));

  dq.resize(q.rows(), q.cols());
  dk.resize(k.rows(), k.cols());
  dv.resize(v.rows(), v.cols());
  Matrix<T> dp(s, s);
  Matrix<T> dscores(s, s);
  Vector<T> row_dot(s);
  for (Eigen::Index batch = 0; batch < shape.b; ++batch) {
    for (Eigen::Index head = 0; head < shape.heads; ++head) {
      const auto q_i = q.block(batch * s, head * d, s, d);
      const auto k_i = k.block(batch * s, head * d, s, d);
      const auto v_i = v.block(batch * s, head * d, s, d);
      const auto dctx_i = dctx.block(batch * s, head * d, s, d);
      const Matrix<T>& p = probs[static_cast<std::size_t>(batch * shape.heads + head)];

      // The dropped probabilities D(p) multiplied v; their mask is drawn again.
      const std::int64_t first = (batch * shape.heads + head) * s * s;
      Matrix<T> dropped = p;
      apply_dropout(dropout, Site::probs, first, dropped);
      // [s, d] x [d, s] -> [s, s], the gradient of D(p), then of p through the same mask
      dp.noalias() = dctx_i * v_i.transpose();
      apply_dropout(dropout, Site::probs, first, dp);
      // [s, s]^T x [s, d] -> [s, d]
      dv.block(batch * s, head * d, s, d).noalias() = dropped.transpose() * dctx_i;

      // Softmax Jacobian: dz_ij = p_ij (dp_ij - sum_k p_ik dp_ik). Masked p_ij are exactly 0,
      // so masked scores get exactly zero gradient. The scale comes from z = scale * q k^T.
      row_dot = (p.array() * dp.array()).rowwise().sum();
      dscores = scale * (p.array() * (dp.array().colwise() - row_dot.array()));

      // [s, s] x [s, d] -> [s, d]
      dq.block(batch * s, head * d, s, d).noalias() = dscores * k_i;
      // [s, s]^T x [s, d] -> [s, d]
      dk.block(batch * s, head * d, s, d).noalias() = dscores.transpose() * q_i;
    }
  }
}

template Matrix<float> attention_forward(const Shape&, const Matrix<float>&, const Matrix<float>&,
                                         const Matrix<float>&, std::vector<Matrix<float>>&,
                                         const Dropout&);
template Matrix<double> attention_forward(const Shape&, const Matrix<double>&,
                                          const Matrix<double>&, const Matrix<double>&,
                                          std::vector<Matrix<double>>&, const Dropout&);
template void attention_backward(const Shape&, const Matrix<float>&, const Matrix<float>&,
                                 const Matrix<float>&, const std::vector<Matrix<float>>&,
                                 const Matrix<float>&, Matrix<float>&, Matrix<float>&,
                                 Matrix<float>&, const Dropout&);
template void attention_backward(const Shape&, const Matrix<double>&, const Matrix<double>&,
                                 const Matrix<double>&, const std::vector<Matrix<double>>&,
                                 const Matrix<double>&, Matrix<double>&, Matrix<double>&,
                                 Matrix<double>&, const Dropout&);

}  // namespace detail
}  // namespace tplab::reference
