// Lesson 03, the library's answer: OperatorF and OperatorG, and Mlp1D, the MLP of the 1D
// scheme (ColumnParallelLinear, GELU, RowParallelLinear).
#include "layers/activation.hpp"
#include "lesson.hpp"
#include "tp1d/conjugate_operators.hpp"
#include "tp1d/mlp_1d.hpp"

namespace tplab::lessons::mlp_1d {

const Tensor& f_forward(const Tensor& x) {
  return tp1d::OperatorF::forward(x);
}

void f_backward(Comm& tp, Tensor& dx) {
  tp1d::OperatorF::backward(tp, dx);
}

void g_forward(Comm& tp, Tensor& y) {
  tp1d::OperatorG::forward(tp, y);
}

const Tensor& g_backward(const Tensor& dy) {
  return tp1d::OperatorG::backward(dy);
}

MlpResult mlp_1d(Device& device, Comm& tp, const MlpShards& p, const Tensor& x, const Tensor& dy) {
  tp1d::Mlp1D mlp(device, tp, {{"w1", p.w1}, {"b1", p.b1}, {"w2", p.w2}, {"b2", p.b2}},
                  Activation::gelu);
  MlpResult r;
  r.y = mlp.forward(x);     // [m, h] -> [m, 4h/t] -> [m, h], all-reduced (g)
  r.dx = mlp.backward(dy);  // [m, h] -> [m, 4h/t] -> [m, h], all-reduced (f)
  TensorMap grads;
  mlp.collect_gradients(grads);
  r.d_w1 = grads.at("d_w1");
  r.d_b1 = grads.at("d_b1");
  r.d_w2 = grads.at("d_w2");
  r.d_b2 = grads.at("d_b2");
  return r;
}

}  // namespace tplab::lessons::mlp_1d
