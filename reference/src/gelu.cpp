#include <cmath>
#include <numbers>

#include "tplab/reference/block.hpp"

namespace tplab::reference {
namespace {

template <typename T>
constexpr T kGeluCubic = T(0.044715);

template <typename T>
T gelu_sqrt_2_over_pi() {
  return std::sqrt(T(2) / std::numbers::pi_v<T>);
}

}  // namespace

template <typename T>
Matrix<T> gelu_tanh(const Matrix<T>& x) {
  const T c = gelu_sqrt_2_over_pi<T>();
  return x.unaryExpr(
      [c](T v) { return T(0.5) * v * (T(1) + std::tanh(c * (v + kGeluCubic<T> * v * v * v))); });
}

template <typename T>
Matrix<T> gelu_tanh_derivative(const Matrix<T>& x) {
  const T c = gelu_sqrt_2_over_pi<T>();
  // Product rule on 0.5 v (1 + t) with t = tanh(u(v)), tanh' = 1 - t^2, u' = c (1 + 3 a v^2).
  return x.unaryExpr([c](T v) {
    const T t = std::tanh(c * (v + kGeluCubic<T> * v * v * v));
    const T du = c * (T(1) + T(3) * kGeluCubic<T> * v * v);
    return T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * du;
  });
}

template Matrix<float> gelu_tanh(const Matrix<float>&);
template Matrix<double> gelu_tanh(const Matrix<double>&);
template Matrix<float> gelu_tanh_derivative(const Matrix<float>&);
template Matrix<double> gelu_tanh_derivative(const Matrix<double>&);

}  // namespace tplab::reference
