// Lesson 07 checker: the distributed LayerNorm alone on inputs whose mean is far larger than
// their spread (where a one-pass variance loses its digits), then the whole 2D block built with
// it, the library's Attention2D and Mlp2D, each tensor against the single-device reference.
#include <fmt/format.h>

#include <cmath>
#include <optional>

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

/// The distributed LayerNorm alone, on inputs far from zero, and its reference.
struct LayerNormCase {
  HostArray x, dy, gamma, beta;
  HostArray y, dx, d_gamma, d_beta;  // the reference's
  HostArray xhat, rstd;              // what the reference's forward keeps for backward
  Tolerance tolerance;
};

LayerNormCase layernorm_case() {
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  LayerNormCase c;
  c.x = shifted(host_array({m, h}, draw(m * h, 71, false)), kMeanOffset);
  c.dy = host_array({m, h}, draw(m * h, 72, false));
  c.gamma = shifted(host_array({h}, draw(h, 73, false)), 1.0);
  c.beta = host_array({h}, draw(h, 74, false));
  ref::Matrix<double> dx;
  ref::Vector<double> dgamma, dbeta;
  const auto ref_x = verify::to_reference_matrix<double>(c.x);
  const auto ref_gamma = verify::to_reference_vector<double>(c.gamma);
  const ref::Matrix<double> y =
      ref::layernorm_forward(ref_x, ref_gamma, verify::to_reference_vector<double>(c.beta));
  ref::layernorm_backward(ref_x, ref_gamma, verify::to_reference_matrix<double>(c.dy), dx, dgamma,
                          dbeta);
  c.y = verify::to_host_array(y, {m, h});
  c.dx = verify::to_host_array(dx, {m, h});
  c.d_gamma = verify::to_host_array(dgamma, {h});
  c.d_beta = verify::to_host_array(dbeta, {h});
  // xhat and rstd per token, two-pass: what backward reads when forward is not done.
  c.xhat = c.x;
  c.rstd = HostArray{{m}, std::vector<double>(static_cast<std::size_t>(m))};
  for (std::int64_t r = 0; r < m; ++r) {
    const auto row = c.xhat.values.begin() + r * h;
    double mean = 0, var = 0;
    for (std::int64_t f = 0; f < h; ++f) mean += row[f] / static_cast<double>(h);
    for (std::int64_t f = 0; f < h; ++f) var += (row[f] - mean) * (row[f] - mean) / h;
    const double rstd = 1.0 / std::sqrt(var + kEps);
    for (std::int64_t f = 0; f < h; ++f) row[f] = (row[f] - mean) * rstd;
    c.rstd.values[static_cast<std::size_t>(r)] = rstd;
  }
  // So far from zero even the two-pass variance rounds the mean by about |mean| x 2^-52, 50
  // times more than at verify's offset of 20, where f64's tolerance was measured: scaled by
  // that, it still leaves a one-pass variance (off by |mean|^2 x 2^-52) a hundred times over.
  c.tolerance = verify::tolerance_for(DType::f64, false);
  const double farther = kMeanOffset / verify::kShiftedInputMean;
  c.tolerance.atol_scale *= farther;
  c.tolerance.rtol *= farther;
  c.tolerance.max_rel_l2 *= farther;
  return c;
}

/// The 2D block with the exercise's LayerNorm, the library's Attention2D and Mlp2D, and what
/// its forward keeps for backward.
class Block2D {
 public:
  Block2D(Device& device, Grid2D& grid, const TensorMap& p)
      : device_(device),
        grid_(grid),
        p_(p),
        attention_(device, grid, kShape.b / grid.q, kShape.heads / grid.q, kShape.head_dim(), p),
        mlp_(device, grid, p, Activation::gelu) {}

  /// y = x1 + MLP(LN2(x1)) with x1 = x + Attention(LN1(x)).
  Tensor forward(const Tensor& x) {
    const Tensor a = distributed_layernorm_forward(device_, grid_, kShape.h, x, p_.at("ln1_gamma"),
                                                   p_.at("ln1_beta"), ln1_);
    Tensor x1 = attention_.forward(a);
    device_.add_inplace(x1, x);  // x1 = x + Attention(LN1(x))
    const Tensor mid = distributed_layernorm_forward(device_, grid_, kShape.h, x1,
                                                     p_.at("ln2_gamma"), p_.at("ln2_beta"), ln2_);
    Tensor y = mlp_.forward(mid);
    device_.add_inplace(y, x1);  // y = x1 + MLP(LN2(x1))
    return y;
  }

  /// dx and every gradient, by the names verify checks.
  TensorMap backward(const Tensor& dy) {
    const LayerNormGrads g2 = distributed_layernorm_backward(
        device_, grid_, kShape.h, mlp_.backward(dy), p_.at("ln2_gamma"), ln2_);
    Tensor dx1 = g2.dx;
    device_.add_inplace(dx1, dy);
    const LayerNormGrads g1 = distributed_layernorm_backward(
        device_, grid_, kShape.h, attention_.backward(dx1), p_.at("ln1_gamma"), ln1_);
    Tensor dx = g1.dx;
    device_.add_inplace(dx, dx1);
    TensorMap out;
    attention_.collect_gradients(out);
    mlp_.collect_gradients(out);
    out.emplace("d_ln1_gamma", g1.d_gamma);
    out.emplace("d_ln1_beta", g1.d_beta);
    out.emplace("d_ln2_gamma", g2.d_gamma);
    out.emplace("d_ln2_beta", g2.d_beta);
    out.emplace("dx", dx);
    return out;
  }

 private:
  Device& device_;
  Grid2D& grid_;
  const TensorMap& p_;
  tp2d::Attention2D attention_;
  tp2d::Mlp2D mlp_;
  LayerNormSaved ln1_, ln2_;
};

void run(Lesson& lesson) {
  const int q = square_root(lesson.size());
  require_world_size(lesson, q > 0 && kShape.b % q == 0 && kShape.heads % q == 0,
                     fmt::format("lesson 07 runs on a q x q grid whose q divides the batch ({}) "
                                 "and the heads ({})",
                                 kShape.b, kShape.heads),
                     {1, 4});
  Grid2D grid = Grid2D::build(lesson.world());
  Device& device = lesson.device();
  const std::int64_t h = kShape.h;
  const std::vector<TensorPlacement> places =
      tp2d::Scheme2D().placements(lesson.size(), kShape, Workload::block);
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    return find_placement(places, name);
  };
  // The 2D scheme's placements: activations by (token block i, feature block j), LayerNorm's
  // parameters by feature block j, the same down a column; rstd by token block i.
  const TensorPlacement& activation = place("x");
  const TensorPlacement& vector = place("ln1_gamma");
  const TensorPlacement per_token =
      blocked("rstd", {kShape.tokens()}, "token block i", lesson.size(), 1, q, [q](int r) {
        return std::pair<std::int64_t, std::int64_t>{0, r / q};
      });
  lesson.print_shards({{"x", "[m_I, h_J]", &activation},
                       {"gamma", "[h_J]", &vector},
                       {"rstd", "[m_I]", &per_token},
                       {"Wq", "[h_I, h_J]", &place("wq")},
                       {"bq", "[h_J]", &place("bq")},
                       {"W1", "[h_I, 4h_J]", &place("w1")},
                       {"W2", "[4h_I, h_J]", &place("w2")}});

  const LayerNormCase ln = layernorm_case();
  const Tensor gamma_local = lesson.shard(ln.gamma, vector);
  LayerNormSaved saved;
  const verify::HostArrays in =
      verify::make_inputs(kShape, input_seed(9), Workload::block, verify::Values::real);
  const verify::HostArrays want = verify::reference_outputs(kShape, in, Workload::block);
  TensorMap p;
  for (std::string_view name : kBlockParameters) {
    p.emplace(std::string(name), lesson.shard(in.find(name)->second, place(name)));
  }
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  std::optional<Block2D> block;
  const auto ln_title = [](const char* step) {
    return fmt::format(
        "distributed LayerNorm, mean {:g} and spread ~0.6 per token, {} (f64 "
        "tolerance)",
        kMeanOffset, step);
  };

  lesson.part("forward", [&] {
    const Tensor y =
        distributed_layernorm_forward(device, grid, h, lesson.shard(ln.x, activation), gamma_local,
                                      lesson.shard(ln.beta, vector), saved);
    lesson.expect("y", ln.y, activation, y, ln.tolerance);
    lesson.report(ln_title("forward"));
    block.emplace(device, grid, p);
    lesson.expect("y", want.at("y"), place("y"),
                  block->forward(lesson.shard(in.at("x"), place("x"))), tolerance);
    lesson.report("the 2D block with your LayerNorm, forward (f64 tolerance)");
  });
  lesson.part("backward", [&] {
    // LayerNorm's backward reads what forward kept: the reference's, so that it is checked on
    // its own whatever forward's verdict (the block's backward below reads the exercise's).
    saved = {lesson.shard(ln.xhat, activation), lesson.shard(ln.rstd, per_token)};
    const LayerNormGrads g = distributed_layernorm_backward(
        device, grid, h, lesson.shard(ln.dy, activation), gamma_local, saved);
    lesson.expect("dx", ln.dx, activation, g.dx, ln.tolerance);
    lesson.expect("d_gamma", ln.d_gamma, vector, g.d_gamma, ln.tolerance);
    lesson.expect("d_beta", ln.d_beta, vector, g.d_beta, ln.tolerance);
    lesson.report(ln_title("backward"));
    lesson.require_part("forward",
                        "the block's backward runs on the activations its forward keeps");
    const TensorMap got = block->backward(lesson.shard(in.at("dy"), place("dy")));
    for (const std::string& name : verify::checked_tensors(Workload::block)) {
      if (name != "y") lesson.expect(name, want.at(name), place(name), got.at(name), tolerance);
    }
    lesson.report("the 2D block with your LayerNorm, backward (f64 tolerance)");
  });
}

}  // namespace
}  // namespace tplab::lessons::block_2d

int main() {
  return tplab::lessons::run_lesson("lesson 07", tplab::lessons::block_2d::run);
}
