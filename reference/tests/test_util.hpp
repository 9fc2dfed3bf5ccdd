/// @file
/// Random blocks and a uniform view over the sixteen parameter tensors, for the tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tplab/reference/block.hpp"

namespace tplab::reference::testing {

/// Uniform in [center - spread, center + spread], from a seeded engine so runs repeat.
inline Matrix<double> random_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937_64& rng,
                                    double spread, double center = 0.0) {
  std::uniform_real_distribution<double> dist(center - spread, center + spread);
  Matrix<double> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = dist(rng);
  return m;
}

inline Vector<double> random_vector(Eigen::Index n, std::mt19937_64& rng, double spread,
                                    double center = 0.0) {
  return random_matrix(n, 1, rng, spread, center).col(0);
}

/// Weights scaled by 1/sqrt(fan_in) keep the softmax and GELU in their curved regions,
/// where a wrong gradient shows; biases and LayerNorm parameters are deliberately far from
/// their 0/1 defaults so that every term in the backward carries weight.
inline BlockParams<double> random_params(const Shape& shape, std::mt19937_64& rng) {
  const Eigen::Index h = shape.h;
  const double w_in = 1.0 / std::sqrt(static_cast<double>(h));
  const double w_mid = 1.0 / std::sqrt(static_cast<double>(4 * h));
  BlockParams<double> p;
  p.ln1_gamma = random_vector(h, rng, 0.5, 1.0);
  p.ln1_beta = random_vector(h, rng, 0.5);
  p.wq = random_matrix(h, h, rng, 2 * w_in);
  p.wk = random_matrix(h, h, rng, 2 * w_in);
  p.wv = random_matrix(h, h, rng, 2 * w_in);
  p.wo = random_matrix(h, h, rng, 2 * w_in);
  p.bq = random_vector(h, rng, 0.5);
  p.bk = random_vector(h, rng, 0.5);
  p.bv = random_vector(h, rng, 0.5);
  p.bo = random_vector(h, rng, 0.5);
  p.ln2_gamma = random_vector(h, rng, 0.5, 1.0);
  p.ln2_beta = random_vector(h, rng, 0.5);
  p.w1 = random_matrix(h, 4 * h, rng, 2 * w_in);
  p.b1 = random_vector(4 * h, rng, 0.5);
  p.w2 = random_matrix(4 * h, h, rng, 2 * w_mid);
  p.b2 = random_vector(h, rng, 0.5);
  return p;
}

/// One parameter tensor seen as flat storage.
template <typename T>
struct TensorView {
  std::string name;
  T* data;
  Eigen::Index size;
  Eigen::Map<Vector<T>> flat() const { return {data, size}; }
};

/// The sixteen tensors of a BlockParams in a fixed order, so that params and grads pair up.
template <typename T>
std::vector<TensorView<T>> tensors(BlockParams<T>& p) {
  auto view = [](const char* name, auto& t) { return TensorView<T>{name, t.data(), t.size()}; };
  return {view("ln1_gamma", p.ln1_gamma),
          view("ln1_beta", p.ln1_beta),
          view("wq", p.wq),
          view("bq", p.bq),
          view("wk", p.wk),
          view("bk", p.bk),
          view("wv", p.wv),
          view("bv", p.bv),
          view("wo", p.wo),
          view("bo", p.bo),
          view("ln2_gamma", p.ln2_gamma),
          view("ln2_beta", p.ln2_beta),
          view("w1", p.w1),
          view("b1", p.b1),
          view("w2", p.w2),
          view("b2", p.b2)};
}

template <typename To, typename From>
BlockParams<To> cast_params(const BlockParams<From>& p) {
  BlockParams<To> c;
  c.ln1_gamma = p.ln1_gamma.template cast<To>();
  c.ln1_beta = p.ln1_beta.template cast<To>();
  c.wq = p.wq.template cast<To>();
  c.wk = p.wk.template cast<To>();
  c.wv = p.wv.template cast<To>();
  c.wo = p.wo.template cast<To>();
  c.bq = p.bq.template cast<To>();
  c.bk = p.bk.template cast<To>();
  c.bv = p.bv.template cast<To>();
  c.bo = p.bo.template cast<To>();
  c.ln2_gamma = p.ln2_gamma.template cast<To>();
  c.ln2_beta = p.ln2_beta.template cast<To>();
  c.w1 = p.w1.template cast<To>();
  c.b1 = p.b1.template cast<To>();
  c.w2 = p.w2.template cast<To>();
  c.b2 = p.b2.template cast<To>();
  return c;
}

/// ||a - b|| / ||b||, the error measure of every comparison against a reference value b.
template <typename A, typename B>
double relative_error(const A& a, const B& b) {
  return (a - b).norm() / b.norm();
}

// Central differences have truncation error ~ step^2 and rounding error ~ 1e-16 |L| / step;
// at 1e-5 both sit far below the 1e-6 tolerance for these small, O(1) problems.
constexpr double kFiniteDifferenceStep = 1e-5;
constexpr double kGradientTolerance = 1e-6;

/// Central-difference gradient of loss() with respect to each of the `size` elements at `data`.
template <typename Loss>
Vector<double> finite_difference(double* data, Eigen::Index size, const Loss& loss) {
  constexpr double step = kFiniteDifferenceStep;
  Vector<double> fd(size);
  for (Eigen::Index i = 0; i < size; ++i) {
    const double saved = data[i];
    data[i] = saved + step;
    const double plus = loss();
    data[i] = saved - step;
    const double minus = loss();
    data[i] = saved;
    fd(i) = (plus - minus) / (2 * step);
  }
  return fd;
}

}  // namespace tplab::reference::testing
