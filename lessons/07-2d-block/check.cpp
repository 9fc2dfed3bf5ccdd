// Lesson 07 checker: the distributed LayerNorm alone on inputs whose mean is far larger than
// their spread (where a one-pass variance loses its digits), then the whole 2D block built with
// it, the library's Attention2D and Mlp2D, each tensor against the single-device reference.
#include <fmt/format.h>

#include "harness.hpp"
#include "layers/activation.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "problem.hpp"
#include "reference_bridge.hpp"
#include "tp2d/attention_2d.hpp"
#include "tp2d/mlp_2d.hpp"
#include "tp2d/scheme_2d.hpp"

namespace tplab::lessons::block_2d {
namespace {

namespace ref = tplab::reference;

constexpr BlockShape kShape{2, 4, 16, 4};  // b, s, h, n: m = 8 tokens
constexpr double kMeanOffset = 1000.0;     // |mean| / std ~ 1700 in the LayerNorm check

/// Adds `offset` to every value of `a`.
HostArray shifted(HostArray a, double offset) {
  for (double& v : a.values) v += offset;
  return a;
}

bool check_layernorm(Lesson& lesson, Grid2D& grid, const std::vector<TensorPlacement>& places) {
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  const HostArray x = shifted(host_array({m, h}, draw(m * h, 71, false)), kMeanOffset);
  const HostArray dy = host_array({m, h}, draw(m * h, 72, false));
  const HostArray gamma = shifted(host_array({h}, draw(h, 73, false)), 1.0);
  const HostArray beta = host_array({h}, draw(h, 74, false));
  ref::Matrix<double> dx;
  ref::Vector<double> dgamma, dbeta;
  const auto ref_x = verify::to_reference_matrix<double>(x);
  const auto ref_gamma = verify::to_reference_vector<double>(gamma);
  const ref::Matrix<double> y =
      ref::layernorm_forward(ref_x, ref_gamma, verify::to_reference_vector<double>(beta));
  ref::layernorm_backward(ref_x, ref_gamma, verify::to_reference_matrix<double>(dy), dx, dgamma,
                          dbeta);

  // The 2D scheme's placements: activations by (token block i, feature block j), LayerNorm's
  // parameters by feature block j, the same down a column.
  const TensorPlacement& activation = find_placement(places, "x");
  const TensorPlacement& vector = find_placement(places, "ln1_gamma");
  lesson.print_shards({{"x(i,j)", "[m/q, h/q]", &activation}, {"gamma(j)", "[h/q]", &vector}});
  LayerNormSaved saved;
  const Tensor gamma_local = lesson.shard(gamma, vector);
  const Tensor y_local =
      distributed_layernorm_forward(lesson.device(), grid, h, lesson.shard(x, activation),
                                    gamma_local, lesson.shard(beta, vector), saved);
  const LayerNormGrads g = distributed_layernorm_backward(
      lesson.device(), grid, h, lesson.shard(dy, activation), gamma_local, saved);
  // So far from zero even the two-pass variance rounds the mean by about |mean| x 2^-52, 50
  // times more than at verify's offset of 20, where f64's tolerance was measured: scaled by
  // that, it still leaves a one-pass variance (off by |mean|^2 x 2^-52) a hundred times over.
  Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  const double farther = kMeanOffset / verify::kShiftedInputMean;
  tolerance.atol_scale *= farther;
  tolerance.rtol *= farther;
  tolerance.max_rel_l2 *= farther;
  lesson.expect("y", verify::to_host_array(y, {m, h}), activation, y_local, tolerance);
  lesson.expect("dx", verify::to_host_array(dx, {m, h}), activation, g.dx, tolerance);
  lesson.expect("d_gamma", verify::to_host_array(dgamma, {h}), vector, g.d_gamma, tolerance);
  lesson.expect("d_beta", verify::to_host_array(dbeta, {h}), vector, g.d_beta, tolerance);
  return lesson.report(fmt::format(
      "distributed LayerNorm, mean {:g} and spread ~0.6 per token (f64 tolerance)", kMeanOffset));
}

/// Forward and backward of the 2D block with the exercise's LayerNorm; y, dx and every gradient.
TensorMap run_block(Lesson& lesson, Grid2D& grid, const TensorMap& p, const Tensor& x,
                    const Tensor& dy) {
  Device& device = lesson.device();
  const int q = grid.q;
  tp2d::Attention2D attention(device, grid, kShape.b / q, kShape.heads / q, kShape.head_dim(), p);
  tp2d::Mlp2D mlp(device, grid, p, Activation::gelu);
  LayerNormSaved ln1, ln2;
  const Tensor a = distributed_layernorm_forward(device, grid, kShape.h, x, p.at("ln1_gamma"),
                                                 p.at("ln1_beta"), ln1);
  Tensor x1 = attention.forward(a);
  device.add_inplace(x1, x);  // x1 = x + Attention(LN1(x))
  const Tensor mid = distributed_layernorm_forward(device, grid, kShape.h, x1, p.at("ln2_gamma"),
                                                   p.at("ln2_beta"), ln2);
  Tensor y = mlp.forward(mid);
  device.add_inplace(y, x1);  // y = x1 + MLP(LN2(x1))

  const LayerNormGrads g2 = distributed_layernorm_backward(device, grid, kShape.h, mlp.backward(dy),
                                                           p.at("ln2_gamma"), ln2);
  Tensor dx1 = g2.dx;
  device.add_inplace(dx1, dy);
  const LayerNormGrads g1 = distributed_layernorm_backward(
      device, grid, kShape.h, attention.backward(dx1), p.at("ln1_gamma"), ln1);
  Tensor dx = g1.dx;
  device.add_inplace(dx, dx1);

  TensorMap out;
  attention.collect_gradients(out);
  mlp.collect_gradients(out);
  out.emplace("d_ln1_gamma", g1.d_gamma);
  out.emplace("d_ln1_beta", g1.d_beta);
  out.emplace("d_ln2_gamma", g2.d_gamma);
  out.emplace("d_ln2_beta", g2.d_beta);
  out.emplace("y", y);
  out.emplace("dx", dx);
  return out;
}

bool check_block(Lesson& lesson, Grid2D& grid, const std::vector<TensorPlacement>& places) {
  const verify::HostArrays in =
      verify::make_inputs(kShape, 9, Workload::block, verify::Values::real);
  const verify::HostArrays want = verify::reference_outputs(kShape, in, Workload::block);
  const auto place = [&](std::string_view name) { return &find_placement(places, name); };
  lesson.print_shards({{"x(i,j)", "[m/q, h/q]", place("x")},
                       {"Wq(i,j)", "[h/q, h/q]", place("wq")},
                       {"bq(j)", "[h/q]", place("bq")},
                       {"W1(i,j)", "[h/q, 4h/q]", place("w1")},
                       {"W2(i,j)", "[4h/q, h/q]", place("w2")}});
  TensorMap p;
  for (std::string_view name : kBlockParameters) {
    p.emplace(std::string(name), lesson.shard(in.find(name)->second, *place(name)));
  }
  const TensorMap got = run_block(lesson, grid, p, lesson.shard(in.at("x"), *place("x")),
                                  lesson.shard(in.at("dy"), *place("dy")));
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  for (const std::string& name : verify::checked_tensors(Workload::block)) {
    lesson.expect(name, want.at(name), *place(name), got.at(name), tolerance);
  }
  return lesson.report("the 2D block with your LayerNorm (f64 tolerance)");
}

bool run(Lesson& lesson) {
  const int q = square_root(lesson.size());
  require_world_size(lesson, q > 0 && kShape.b % q == 0 && kShape.heads % q == 0,
                     fmt::format("lesson 07 runs on a q x q grid whose q divides the batch ({}) "
                                 "and the heads ({})",
                                 kShape.b, kShape.heads),
                     {1, 4});
  Grid2D grid = Grid2D::build(lesson.world());
  const std::vector<TensorPlacement> places =
      tp2d::Scheme2D().placements(lesson.size(), kShape, Workload::block);
  const bool layernorm = check_layernorm(lesson, grid, places);
  return check_block(lesson, grid, places) && layernorm;
}

}  // namespace
}  // namespace tplab::lessons::block_2d

int main() {
  return tplab::lessons::run_lesson("lesson 07", tplab::lessons::block_2d::run);
}
