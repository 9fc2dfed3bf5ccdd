#include <cmath>

#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

/// xhat = (x - mean) * rstd per row, with rstd = 1 / sqrt(var + eps). Both passes need these,
/// and recomputing them in the backward keeps the public interface free of saved state.
template <typename T>
void normalize(const Matrix<T>& x, Matrix<T>& xhat, Vector<T>& rstd) {
  const Vector<T> mean = x.rowwise().mean();
  xhat = x.colwise() - mean;
  // Two passes (mean first, then the mean of squared deviations): E[x^2] - E[x]^2 cancels
  // catastrophically when the mean is large against the spread, especially in float.
  const Vector<T> var = xhat.array().square().rowwise().mean();
  rstd = (var.array() + static_cast<T>(kLayerNormEps)).rsqrt();
  xhat.array().colwise() *= rstd.array();
}

}  // namespace

template <typename T>
Matrix<T> layernorm_forward(const Matrix<T>& x, const Vector<T>& gamma, const Vector<T>& beta) {
  Matrix<T> xhat;
  Vector<T> rstd;
  normalize(x, xhat, rstd);
  Matrix<T> y = xhat.array().rowwise() * gamma.transpose().array();
  y.rowwise() += beta.transpose();
  return y;
}

template <typename T>
void layernorm_backward(const Matrix<T>& x, const Vector<T>& gamma, const Matrix<T>& dy,
                        Matrix<T>& dx, Vector<T>& dgamma, Vector<T>& dbeta) {
  Matrix<T> xhat;
  Vector<T> rstd;
  normalize(x, xhat, rstd);

  // gamma and beta act on every row alike, so their gradients sum over rows.
  dgamma = (dy.array() * xhat.array()).colwise().sum().transpose();
  dbeta = dy.colwise().sum().transpose();

  // Every xhat in a row depends on the whole row through mean and variance, which gives
  // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) with row-wise means.
  const Matrix<T> dxhat = dy.array().rowwise() * gamma.transpose().array();
  const Vector<T> mean_dxhat = dxhat.rowwise().mean();
  const Vector<T> mean_dxhat_xhat = (dxhat.array() * xhat.array()).rowwise().mean();
  dx = dxhat.colwise() - mean_dxhat;
  dx.array() -= xhat.array().colwise() * mean_dxhat_xhat.array();
  dx.array().colwise() *= rstd.array();
}

template Matrix<float> layernorm_forward(const Matrix<float>&, const Vector<float>&,
                                         const Vector<float>&);
template Matrix<double> layernorm_forward(const Matrix<double>&, const Vector<double>&,
                                          const Vector<double>&);
template void layernorm_backward(const Matrix<float>&, const Vector<float>&, const Matrix<float>&,
                                 Matrix<float>&, Vector<float>&, Vector<float>&);
template void layernorm_backward(const Matrix<double>&, const Vector<double>&,
                                 const Matrix<double>&, Matrix<double>&, Vector<double>&,
                                 Vector<double>&);

}  // namespace tplab::reference
