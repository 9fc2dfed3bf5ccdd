// Lesson 10 checker: the linear pair of the 3D block, Y = (X W1 + b1) W2 + b2. Forward is the
// library's (tp3d::InputGather3D and Linear3D, the second linear in the exercise's roles);
// backward is the exercise's, for both linears. Every output and gradient shard against the
// reference, exactly, and backward's collectives against the cost model (model/cost_3d.cpp).
#include <fmt/format.h>

#include "comm_check.hpp"
#include "cost_3d.hpp"
#include "lesson.hpp"
#include "lessons/common/cube_sums.hpp"
#include "lessons/common/lesson.hpp"
#include "problem.hpp"
#include "tp3d/input_gather_3d.hpp"
#include "tp3d/linear_3d.hpp"
#include "tp3d/scheme_3d.hpp"

namespace tplab::lessons::block_3d {
namespace {

/// b = 2, s = 4 (m = 8 tokens), h = 16: q^2 = 4 divides m and h, as 3D needs.
constexpr BlockShape kShape{2, 4, 16, 4};

/// W~: the weight shard all-gathered over the weight group, as forward gathers it.
Tensor gather_weight(Device& device, const Grid3D& grid, const Tensor& w) {
  // [in/q^2, out/q] -> [in/q, out/q]
  Tensor gathered = device.empty({w.rows() * grid.weight->size(), w.cols()}, w.dtype());
  grid.weight->all_gather(w, gathered);
  return gathered;
}

/// The linear pair's forward on the library's layers, in the roles `first` and `second`, and
/// what backward needs from it.
struct PairForward {
  Tensor x1_gathered, x2_gathered, y;
  std::vector<CollectiveCount> comm;  // forward's collectives, as the counters saw them
};

PairForward pair_forward(Lesson& lesson, const Grid3D& grid, tp3d::LinearRoles first,
                         tp3d::LinearRoles second,
                         const std::function<Tensor(const char*)>& shard) {
  Device& device = lesson.device();
  CommCounters& counters = lesson.world().counters();
  counters.reset();
  tp3d::InputGather3D fc1_input(device, grid, first);
  tp3d::Linear3D fc1(device, grid, first, shard("w1"), shard("b1"));
  tp3d::InputGather3D fc2_input(device, grid, second);
  tp3d::Linear3D fc2(device, grid, second, shard("w2"), shard("b2"));
  PairForward f;
  f.x1_gathered = fc1_input.forward(shard("x"));     // [m/q, h/q]
  const Tensor hidden = fc1.forward(f.x1_gathered);  // [m/q^2, 4h/q]
  f.x2_gathered = fc2_input.forward(hidden);         // [m/q, 4h/q]
  f.y = fc2.forward(f.x2_gathered);                  // [m/q^2, h/q]
  f.comm = lesson.counted(counters.snapshot());
  return f;
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  const int q = cube_side(p);
  require_world_size(lesson, q == 1 || q == 2,
                     fmt::format("lesson 10 arranges the ranks in a cube of q x q x q with q^2 "
                                 "dividing m = {} and h = {}",
                                 kShape.tokens(), kShape.h),
                     {1, 8});
  const Workload pair = Workload::linear_pair;
  const verify::HostArrays inputs =
      verify::make_inputs(kShape, input_seed(13), pair, verify::Values::integer);
  const verify::HostArrays reference = verify::reference_outputs(kShape, inputs, pair);
  const std::vector<TensorPlacement> placements = tp3d::Scheme3D().placements(p, kShape, pair);
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    return find_placement(placements, name);
  };
  const auto shard = [&](const char* name) { return lesson.shard(inputs.at(name), place(name)); };
  lesson.print_shards({{"X", "[m_JI, h_K]", &place("x")},
                       {"W1", "[h_KJ, 4h_I]", &place("w1")},
                       {"b1", "[4h_I]", &place("b1")},
                       {"W2", "[4h_IJ, h_K]", &place("w2")},
                       {"b2", "[h_K]", &place("b2")},
                       {"Y", "[m_JI, h_K]", &place("y")}});

  Device& device = lesson.device();
  const Grid3D grid = Grid3D::build(lesson.world());
  const tp3d::LinearRoles first = tp3d::kReadsBlockLayout;
  const auto expect = [&](const char* name, const Tensor& got) -> const std::vector<double>& {
    return lesson.expect(name, reference.at(name), place(name), got, exact_tolerance());
  };

  lesson.part("forward", [&] {
    // The library's forward, its second linear in the exercise's roles.
    expect("y", pair_forward(lesson, grid, first, next_roles(first), shard).y);
    lesson.report(
        fmt::format("3D linear pair on a {0} x {0} x {0} cube, forward, exact (integer "
                    "inputs)",
                    q));
  });

  lesson.part("backward", [&] {
    // Backward runs on the library's forward in the reference's roles, so that it can be
    // checked whatever forward's verdict.
    const tp3d::LinearRoles second = first.swapped();
    const PairForward f = pair_forward(lesson, grid, first, second, shard);
    const Tensor w1_gathered = gather_weight(device, grid, shard("w1"));
    const Tensor w2_gathered = gather_weight(device, grid, shard("w2"));
    CommCounters& counters = lesson.world().counters();
    counters.reset();
    const LinearGradients g2 =
        linear_3d_backward(device, grid, second, shard("dy"), f.x2_gathered, w2_gathered);
    const LinearGradients g1 =
        linear_3d_backward(device, grid, first, g2.dx, f.x1_gathered, w1_gathered);
    const model::CommCheck comm = model::check_comm(f.comm, lesson.counted(counters.snapshot()),
                                                    model::cost_3d(kShape, q, false, pair).comm);

    const std::vector<double>& dx = expect("dx", g1.dx);
    const std::vector<double>& d_w1 = expect("d_w1", g1.dw);
    expect("d_b1", g1.db);
    const std::vector<double>& d_w2 = expect("d_w2", g2.dw);
    expect("d_b2", g2.db);
    // A wrong sum is often a sum over the wrong group of the cube: name it where one matches.
    const HostArray& x = inputs.at("x");
    const HostArray& w1 = inputs.at("w1");
    const HostArray& w2 = inputs.at("w2");
    const HostArray& dy = inputs.at("dy");
    HostArray hidden = reference_matmul(x, w1);  // [m, h] x [h, 4h] -> [m, 4h], + b1
    const std::int64_t width = hidden.extents.at(1);
    for (std::size_t e = 0; e < hidden.values.size(); ++e) {
      hidden.values[e] += inputs.at("b1").values[e % static_cast<std::size_t>(width)];
    }
    const HostArray d_hidden = reference_matmul(dy, reference_transpose(w2));  // [m, h] x [h, 4h]
    const LinearPartials fc1 = linear_3d_backward_partials(x, w1, d_hidden, first, q);
    const LinearPartials fc2 = linear_3d_backward_partials(hidden, w2, dy, second, q);
    const std::pair<const char*, std::string> diagnoses[] = {
        {"dx", diagnose_group_sum(lesson, dx, fc1.dx, first.input)},
        {"d_w1", diagnose_group_sum(lesson, d_w1, fc1.dw, Axis3D::weight)},
        {"d_w2", diagnose_group_sum(lesson, d_w2, fc2.dw, Axis3D::weight)}};
    for (const auto& [name, text] : diagnoses) {
      if (!text.empty()) lesson.explain(name, text);
    }

    // One entry per collective and group (measured or modelled), as check_comm lines them up.
    std::vector<double> calls, model_calls, elements, model_elements;
    for (const model::CommComparison& row : comm.backward) {
      calls.push_back(static_cast<double>(row.calls));
      model_calls.push_back(static_cast<double>(row.model_calls));
      elements.push_back(static_cast<double>(row.elements));
      model_elements.push_back(static_cast<double>(row.model_elements));
    }
    const std::int64_t rows = static_cast<std::int64_t>(calls.size());
    const TensorPlacement per_row = replicated("collectives", {rows}, p);
    const auto as_tensor = [&](const std::vector<double>& values) {
      Tensor t = device.empty({rows}, DType::f64);
      device.upload(values, t);
      return t;
    };
    if (rows > 0) {  // a cube of one rank communicates nothing
      lesson.expect_measured("bwd calls", host_array({rows}, model_calls), per_row,
                             as_tensor(calls), exact_tolerance());
      lesson.expect_measured("bwd N", host_array({rows}, model_elements), per_row,
                             as_tensor(elements), exact_tolerance());
    }
    lesson.report(fmt::format(
        "3D linear pair on a {0} x {0} x {0} cube, backward, exact (integer inputs)", q));
    if (lesson.speaks() && q > 1) {
      fmt::print(
          "  bwd calls, bwd N: backward's collectives, one entry per collective and group, "
          "against model/cost_3d.cpp; on rank 0, measured / model:\n");
      for (const model::CommComparison& row : comm.backward) {
        fmt::print(
            "    {:<15} on {:<14} {:>2} calls {:>5} elements / {:>2} calls {:>5} elements{}\n",
            collective_name(row.collective), row.group, row.calls, row.elements, row.model_calls,
            row.model_elements, row.matches() ? "" : "   DIFFERS");
      }
    }
  });
}

}  // namespace
}  // namespace tplab::lessons::block_3d

int main() {
  return tplab::lessons::run_lesson("lesson 10", tplab::lessons::block_3d::run);
}
