#include "reference_mlp.hpp"

namespace tplab::lessons {

namespace ref = tplab::reference;

ReferenceMlp reference_mlp(const ref::Matrix<double>& a, const verify::HostArrays& in) {
  const auto matrix = [&](const char* name) {
    return verify::to_reference_matrix<double>(in.at(name));
  };
  const auto vector = [&](const char* name) {
    return verify::to_reference_vector<double>(in.at(name));
  };
  const ref::Matrix<double> w1 = matrix("w1"), w2 = matrix("w2"), dy = matrix("dy");
  ReferenceMlp r;
  r.hidden = ref::linear_forward(a, w1, vector("b1"));  // [m, h] x [h, 4h] -> [m, 4h]
  r.act = ref::gelu_tanh(r.hidden);
  r.y = ref::linear_forward(r.act, w2, vector("b2"));  // [m, 4h] x [4h, h] -> [m, h]
  ref::Matrix<double> dact;
  ref::linear_backward(r.act, w2, dy, dact, r.dw2, r.db2);  // dact = dY W2^T: [m, 4h]
  const ref::Matrix<double> dhidden = dact.cwiseProduct(ref::gelu_tanh_derivative(r.hidden));
  ref::linear_backward(a, w1, dhidden, r.da, r.dw1, r.db1);  // da = dhidden W1^T: [m, h]
  return r;
}

}  // namespace tplab::lessons
