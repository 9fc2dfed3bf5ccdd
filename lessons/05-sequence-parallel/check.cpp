// Lesson 05 checker: the all-gather and reduce-scatter along the tokens exactly (integer
// inputs), then the sequence-parallel LayerNorm + MLP sublayer against the single-device
// reference within the f64 tolerance: forward's y and what it keeps, and backward's dx and every
// gradient. Backward runs on the reference's kept tensors, so it is checked on its own, whether
// forward is written, right or wrong.
#include <fmt/format.h>

#include <cmath>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "lessons/common/reference_mlp.hpp"
#include "problem.hpp"
#include "reference_bridge.hpp"
#include "tp1d/scheme_1d.hpp"

namespace tplab::lessons::sequence_parallel {
namespace {

namespace ref = tplab::reference;

constexpr BlockShape kShape{2, 4, 16, 4};  // b, s, h, n: m = 8 tokens, 4h = 64

/// Rank r's token rows of an [rows, cols] tensor: Shard(0) over tp.
TensorPlacement token_shard(std::string name, Extents global, int t) {
  return blocked(std::move(name), std::move(global), "Shard(0): tokens", t, t, 1, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{r, 0};
  });
}

void check_collectives(Lesson& lesson) {
  const int t = lesson.size();
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  const HostArray x = host_array({m, h}, draw(m * h, 51, true));
  // Row block r of P[t*m, h] is rank r's partial [m, h].
  const HostArray partials = host_array({t * m, h}, draw(t * m * h, 52, true));
  HostArray sum{{m, h}, std::vector<double>(static_cast<std::size_t>(m * h), 0.0)};
  for (std::size_t i = 0; i < partials.values.size(); ++i) {
    sum.values[i % sum.values.size()] += partials.values[i];
  }
  const TensorPlacement x_shard = token_shard("X_r", x.extents, t);
  const TensorPlacement whole = replicated("X", x.extents, t);
  const TensorPlacement partial_place = token_shard("P_r", partials.extents, t);
  const TensorPlacement sum_place = token_shard("S", sum.extents, t);
  Device& device = lesson.device();
  lesson.expect("X (gather)", x, whole,
                all_gather_tokens(device, lesson.world(), lesson.shard(x, x_shard)),
                exact_tolerance());
  const Tensor partial = lesson.shard(partials, partial_place).reshaped({m, h});
  lesson.expect("S (scatter)", sum, sum_place,
                reduce_scatter_tokens(device, lesson.world(), partial), exact_tolerance());
  lesson.report(
      "all_gather_tokens of X_r, reduce_scatter_tokens of P_r into S, exact (integer inputs)");
}

/// y = x + gelu(LN(x) W1 + b1) W2 + b2 on one device, forward and backward, with what its
/// forward keeps: LN's xhat [m, h] and rstd [m] (two-pass, as the exercise computes them), its
/// output a [m, h], hidden = a W1 + b1 and act = gelu(hidden), both [m, 4h].
verify::HostArrays reference_sublayer(const verify::HostArrays& in) {
  const auto matrix = [&](const char* name) {
    return verify::to_reference_matrix<double>(in.at(name));
  };
  const auto vector = [&](const char* name) {
    return verify::to_reference_vector<double>(in.at(name));
  };
  const ref::Matrix<double> x = matrix("x"), dy = matrix("dy");
  const ref::Vector<double> gamma = vector("ln1_gamma"), beta = vector("ln1_beta");
  const ref::Matrix<double> a = ref::layernorm_forward(x, gamma, beta);
  const ReferenceMlp mlp = reference_mlp(a, in);
  const ref::Matrix<double> y = x + mlp.y;  // [m, h]
  ref::Matrix<double> dx;
  ref::Vector<double> dgamma, dbeta;
  ref::layernorm_backward(x, gamma, mlp.da, dx, dgamma, dbeta);
  dx += dy;  // the residual
  const Extents activation = global_extents("x", kShape);
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  HostArray xhat = in.at("x");
  HostArray rstd{{m}, std::vector<double>(static_cast<std::size_t>(m))};
  for (std::int64_t r = 0; r < m; ++r) {
    const auto row = xhat.values.begin() + r * h;
    double mean = 0, var = 0;
    for (std::int64_t f = 0; f < h; ++f) mean += row[f] / static_cast<double>(h);
    for (std::int64_t f = 0; f < h; ++f) var += (row[f] - mean) * (row[f] - mean) / h;
    const double inverse = 1.0 / std::sqrt(var + kEps);
    for (std::int64_t f = 0; f < h; ++f) row[f] = (row[f] - mean) * inverse;
    rstd.values[static_cast<std::size_t>(r)] = inverse;
  }
  verify::HostArrays out;
  out.emplace("xhat", std::move(xhat));
  out.emplace("rstd", std::move(rstd));
  out.emplace("a", verify::to_host_array(a, activation));
  out.emplace("hidden", verify::to_host_array(mlp.hidden, {m, kShape.ffn()}));
  out.emplace("act", verify::to_host_array(mlp.act, {m, kShape.ffn()}));
  out.emplace("y", verify::to_host_array(y, activation));
  out.emplace("dx", verify::to_host_array(dx, activation));
  out.emplace("d_gamma", verify::to_host_array(dgamma, {kShape.h}));
  out.emplace("d_beta", verify::to_host_array(dbeta, {kShape.h}));
  out.emplace("d_w1", verify::to_host_array(mlp.dw1, global_extents("w1", kShape)));
  out.emplace("d_b1", verify::to_host_array(mlp.db1, global_extents("b1", kShape)));
  out.emplace("d_w2", verify::to_host_array(mlp.dw2, global_extents("w2", kShape)));
  out.emplace("d_b2", verify::to_host_array(mlp.db2, global_extents("b2", kShape)));
  return out;
}

void run(Lesson& lesson) {
  const int t = lesson.size();
  require_world_size(lesson, kShape.tokens() % t == 0 && kShape.ffn() % t == 0 && t <= 8,
                     fmt::format("lesson 05 splits the {} tokens and the {} columns of W1 evenly "
                                 "over t ranks",
                                 kShape.tokens(), kShape.ffn()),
                     {1, 2, 4, 8});
  const verify::HostArrays in =
      verify::make_inputs(kShape, input_seed(7), Workload::block, verify::Values::real);
  const verify::HostArrays want = reference_sublayer(in);
  // The weights as 1D splits them; activations by tokens; LN's parameters whole.
  const std::vector<TensorPlacement> mlp =
      tp1d::Scheme1D().placements(t, kShape, Workload::linear_pair);
  const TensorPlacement tokens = token_shard("x", global_extents("x", kShape), t);
  const TensorPlacement whole_vector = replicated("gamma", {kShape.h}, t);
  const TensorPlacement gathered = replicated("a", global_extents("x", kShape), t);
  const TensorPlacement per_token =
      blocked("rstd", {kShape.tokens()}, "Shard(0): tokens", t, 1, t, [](int r) {
        return std::pair<std::int64_t, std::int64_t>{0, r};
      });
  // What forward keeps between fc1 and fc2: the same columns as W1.
  const TensorPlacement wide_columns =
      blocked("hidden", want.at("hidden").extents, "Shard(1)", t, 1, t, [](int r) {
        return std::pair<std::int64_t, std::int64_t>{0, r};
      });
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    if (name == "x" || name == "dy" || name == "y" || name == "dx" || name == "xhat") {
      return tokens;
    }
    if (name == "d_gamma" || name == "d_beta") return whole_vector;
    if (name == "rstd") return per_token;
    if (name == "a") return gathered;
    if (name == "hidden" || name == "act") return wide_columns;
    return find_placement(mlp, name);
  };
  lesson.print_shards({{"x", "[m_T, h]", &tokens},
                       {"gamma", "[h]", &whole_vector},
                       {"rstd", "[m_T]", &per_token},
                       {"a", "[m, h]", &gathered},
                       {"W1", "[h, 4h_T]", &place("w1")},
                       {"hidden", "[m, 4h_T]", &wide_columns},
                       {"W2", "[4h_T, h]", &place("w2")},
                       {"y", "[m_T, h]", &tokens}});
  const auto shard = [&](const char* name, const TensorPlacement& placement) {
    return lesson.shard(in.at(name), placement);
  };
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  const auto expect = [&](const char* name, const Tensor& got) {
    lesson.expect(name, want.at(name), place(name), got, tolerance);
  };
  const SpShards p{shard("ln1_gamma", whole_vector), shard("ln1_beta", whole_vector),
                   shard("w1", place("w1")),         shard("b1", place("b1")),
                   shard("w2", place("w2")),         shard("b2", place("b2"))};
  const auto kept = [&](const char* name) { return lesson.shard(want.at(name), place(name)); };
  lesson.part("forward", [&] {
    check_collectives(lesson);
    const SpForward got = ln_mlp_forward(lesson.device(), lesson.world(), p, shard("x", tokens));
    expect("y", got.y);
    const auto expect_kept = [&](const char* name, const Tensor& tensor) {
      lesson.expect(fmt::format("kept {}", name), want.at(name), place(name), tensor, tolerance);
    };
    expect_kept("xhat", got.saved.xhat);
    expect_kept("rstd", got.saved.rstd);
    expect_kept("a", got.saved.a);
    expect_kept("hidden", got.saved.hidden);
    expect_kept("act", got.saved.act);
    lesson.report(
        "sequence-parallel LayerNorm + MLP sublayer, forward and what it keeps (f64 tolerance)");
  });
  lesson.part("backward", [&] {
    // The reference's kept tensors, never the exercise's: backward is checked alone, and
    // forward's own report has checked what the exercise keeps.
    const SpSaved saved{kept("xhat"), kept("rstd"), kept("a"), kept("hidden"), kept("act")};
    const SpGrads got =
        ln_mlp_backward(lesson.device(), lesson.world(), p, saved, shard("dy", tokens));
    expect("dx", got.dx);
    expect("d_gamma", got.d_gamma);
    expect("d_beta", got.d_beta);
    expect("d_w1", got.d_w1);
    expect("d_b1", got.d_b1);
    expect("d_w2", got.d_w2);
    expect("d_b2", got.d_b2);
    lesson.report(
        "sequence-parallel LayerNorm + MLP sublayer, backward from the reference's kept tensors "
        "(f64 tolerance)");
  });
}

}  // namespace
}  // namespace tplab::lessons::sequence_parallel

int main() {
  return tplab::lessons::run_lesson("lesson 05", tplab::lessons::sequence_parallel::run);
}
