#include "tplab/reference/block.hpp"

namespace tplab::reference {

template <typename T>
Matrix<T> linear_forward(const Matrix<T>& x, const Matrix<T>& w, const Vector<T>& bias) {
  Matrix<T> y(x.rows(), w.cols());
  // [m, in] x [in, out] -> [m, out]
  y.noalias() = x * w;
  y.rowwise() += bias.transpose();
  return y;
}

template <typename T>
void linear_backward(const Matrix<T>& x, const Matrix<T>& w, const Matrix<T>& dy, Matrix<T>& dx,
                     Matrix<T>& dw, Vector<T>& db) {
  // [m, out] x [out, in] -> [m, in]
  dx.noalias() = dy * w.transpose();
  // [in, m] x [m, out] -> [in, out]
  dw.noalias() = x.transpose() * dy;
  // The bias is broadcast over every row, so its gradient sums over them.
  db = dy.colwise().sum().transpose();
}

template Matrix<float> linear_forward(const Matrix<float>&, const Matrix<float>&,
                                      const Vector<float>&);
template Matrix<double> linear_forward(const Matrix<double>&, const Matrix<double>&,
                                       const Vector<double>&);
template void linear_backward(const Matrix<float>&, const Matrix<float>&, const Matrix<float>&,
                              Matrix<float>&, Matrix<float>&, Vector<float>&);
template void linear_backward(const Matrix<double>&, const Matrix<double>&, const Matrix<double>&,
                              Matrix<double>&, Matrix<double>&, Vector<double>&);

}  // namespace tplab::reference
