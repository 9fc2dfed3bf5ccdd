// Lesson 03 checker: f and g exactly (integer inputs), then the 1D MLP's output and what its
// forward keeps, and every gradient of its backward, against the single-device reference within
// the f64 tolerance. Backward runs on the reference's kept activations, so it is checked on its
// own, whether forward is written, right or wrong.
#include <fmt/format.h>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "lessons/common/reference_mlp.hpp"
#include "problem.hpp"
#include "reference_bridge.hpp"
#include "tp1d/scheme_1d.hpp"

namespace tplab::lessons::mlp_1d {
namespace {

namespace ref = tplab::reference;

constexpr BlockShape kShape{2, 4, 16, 4};  // b, s, h, n: m = 8 tokens, 4h = 64

/// Rank r's partial of P[t*m, h] (row block r), their sum S [m, h], and a replicated X [m, h]:
/// what f and g are checked on.
struct OperatorInputs {
  HostArray partials, sum, x;
  TensorPlacement partial_place, whole;
};

OperatorInputs operator_inputs(int t) {
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  // Row block r of P[t*m, h] is rank r's partial: what a row-parallel layer leaves on rank r.
  const HostArray partials = host_array({t * m, h}, draw(t * m * h, 31, true));
  HostArray sum{{m, h}, std::vector<double>(static_cast<std::size_t>(m * h), 0.0)};
  for (std::size_t i = 0; i < partials.values.size(); ++i) {
    sum.values[i % sum.values.size()] += partials.values[i];
  }
  const HostArray x = host_array({m, h}, draw(m * h, 32, true));
  TensorPlacement partial_place = blocked("P_r", partials.extents, "Shard(0)", t, t, 1, [](int r) {
    return std::pair<std::int64_t, std::int64_t>{r, 0};
  });
  TensorPlacement whole = replicated("X", x.extents, t);
  return {partials, sum, x, std::move(partial_place), std::move(whole)};
}

/// f and g forward: f passes X unchanged; g sums the partials.
void check_operators_forward(Lesson& lesson, const OperatorInputs& in) {
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  lesson.expect("f forward", in.x, in.whole, f_forward(lesson.shard(in.x, in.whole)),
                exact_tolerance());
  Tensor y = lesson.shard(in.partials, in.partial_place).reshaped({m, h});
  g_forward(lesson.world(), y);
  lesson.expect("g forward", in.sum, in.whole, y, exact_tolerance());
  lesson.report("f and g forward, exact (integer inputs): g sums the partials");
}

/// f and g backward: f sums the partials; g passes dY unchanged.
void check_operators_backward(Lesson& lesson, const OperatorInputs& in) {
  const std::int64_t m = kShape.tokens(), h = kShape.h;
  Tensor dx = lesson.shard(in.partials, in.partial_place).reshaped({m, h});
  f_backward(lesson.world(), dx);
  lesson.expect("f backward", in.sum, in.whole, dx, exact_tolerance());
  lesson.expect("g backward", in.x, in.whole, g_backward(lesson.shard(in.x, in.whole)),
                exact_tolerance());
  lesson.report("f and g backward, exact (integer inputs): f sums the partials");
}

/// The single-device MLP's output, what its forward keeps (hidden = X W1 + b1 and
/// act = gelu(hidden), both [m, 4h]) and every gradient, by the names the check uses.
verify::HostArrays expected_tensors(const verify::HostArrays& in) {
  const ReferenceMlp r = reference_mlp(verify::to_reference_matrix<double>(in.at("x")), in);
  verify::HostArrays out;
  const Extents wide{kShape.tokens(), kShape.ffn()};
  out.emplace("y", verify::to_host_array(r.y, global_extents("y", kShape)));
  out.emplace("hidden", verify::to_host_array(r.hidden, wide));
  out.emplace("act", verify::to_host_array(r.act, wide));
  out.emplace("dx", verify::to_host_array(r.da, global_extents("dx", kShape)));
  out.emplace("d_w1", verify::to_host_array(r.dw1, global_extents("w1", kShape)));
  out.emplace("d_b1", verify::to_host_array(r.db1, global_extents("b1", kShape)));
  out.emplace("d_w2", verify::to_host_array(r.dw2, global_extents("w2", kShape)));
  out.emplace("d_b2", verify::to_host_array(r.db2, global_extents("b2", kShape)));
  return out;
}

void run(Lesson& lesson) {
  const int t = lesson.size();
  require_world_size(
      lesson, kShape.ffn() % t == 0 && kShape.h % t == 0 && t <= 8,
      fmt::format("lesson 03 splits the {} columns of W1 evenly over t ranks", kShape.ffn()),
      {1, 2, 4, 8});
  const OperatorInputs operators = operator_inputs(t);
  const verify::HostArrays in =
      verify::make_inputs(kShape, input_seed(3), Workload::linear_pair, verify::Values::real);
  const verify::HostArrays want = expected_tensors(in);
  // The 1D scheme's own placements: W1 and b1 by columns, W2 by rows, b2 and X whole.
  const std::vector<TensorPlacement> places =
      tp1d::Scheme1D().placements(t, kShape, Workload::linear_pair);
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    return find_placement(places, name);
  };
  // What forward keeps between fc1 and fc2: the same columns as W1.
  const TensorPlacement hidden_place =
      blocked("hidden", want.at("hidden").extents, "Shard(1)", t, 1, t, [](int r) {
        return std::pair<std::int64_t, std::int64_t>{0, r};
      });
  lesson.print_shards({{"X", "[m, h]", &place("x")},
                       {"W1", "[h, 4h_T]", &place("w1")},
                       {"b1", "[4h_T]", &place("b1")},
                       {"H", "[m, 4h_T]", &hidden_place},
                       {"W2", "[4h_T, h]", &place("w2")},
                       {"b2", "[h]", &place("b2")},
                       {"Y", "[m, h]", &place("y")}});
  const Tolerance tolerance = verify::tolerance_for(DType::f64, false);
  const auto expect = [&](const char* name, const Tensor& got) {
    lesson.expect(name, want.at(name), place(name), got, tolerance);
  };
  const auto shard = [&](const char* name) { return lesson.shard(in.at(name), place(name)); };
  const MlpShards p{shard("w1"), shard("b1"), shard("w2"), shard("b2")};
  lesson.part("forward", [&] {
    check_operators_forward(lesson, operators);
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const MlpForward got = mlp_forward(lesson.device(), lesson.world(), p, shard("x"));
    const std::vector<CollectiveCount> counts = lesson.counted(counters.snapshot());
    expect("y", got.y);
    // Megatron's MLP forward: g's one all-reduce of Y [m, h], nothing else.
    const TensorPlacement pattern = replicated("fwd comm", {3}, t);
    expect_collectives(lesson, "fwd comm", pattern, counts, Collective::all_reduce, 1,
                       static_cast<double>(kShape.tokens() * kShape.h));
    lesson.expect("kept x", in.at("x"), place("x"), got.saved.x, tolerance);
    lesson.expect("kept hidden", want.at("hidden"), hidden_place, got.saved.hidden, tolerance);
    lesson.expect("kept act", want.at("act"), hidden_place, got.saved.act, tolerance);
    lesson.report("1D MLP forward, and what it keeps for backward (f64 tolerance)");
  });
  lesson.part("backward", [&] {
    check_operators_backward(lesson, operators);
    // The reference's X, hidden and act, never the exercise's: backward is checked alone, and
    // forward's own report has checked what the exercise keeps.
    const MlpSaved saved{shard("x"), lesson.shard(want.at("hidden"), hidden_place),
                         lesson.shard(want.at("act"), hidden_place)};
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const MlpGrads got = mlp_backward(lesson.device(), lesson.world(), p, saved, shard("dy"));
    const std::vector<CollectiveCount> counts = lesson.counted(counters.snapshot());
    expect("dx", got.dx);
    // And backward: f's one all-reduce of dX [m, h].
    const TensorPlacement pattern = replicated("bwd comm", {3}, t);
    expect_collectives(lesson, "bwd comm", pattern, counts, Collective::all_reduce, 1,
                       static_cast<double>(kShape.tokens() * kShape.h));
    expect("d_w1", got.d_w1);
    expect("d_b1", got.d_b1);
    expect("d_w2", got.d_w2);
    expect("d_b2", got.d_b2);
    lesson.report("1D MLP backward, from the reference's kept activations (f64 tolerance)");
  });
}

}  // namespace
}  // namespace tplab::lessons::mlp_1d

int main() {
  return tplab::lessons::run_lesson("lesson 03", tplab::lessons::mlp_1d::run);
}
