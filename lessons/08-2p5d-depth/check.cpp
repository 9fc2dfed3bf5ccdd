// Lesson 08 checker: the 2D block of each depth layer (the library's) on the exercise's grid,
// then the exercise's depth all-reduce; every output and gradient shard against the reference,
// and the depth all-reduce's calls and elements against the cost model (model/cost_2p5d.cpp).
#include <fmt/format.h>

#include <cmath>

#include "cost_2p5d.hpp"
#include "harness.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "problem.hpp"
#include "tp2d/scheme_2d.hpp"
#include "tp2p5d/scheme_2p5d.hpp"

namespace tplab::lessons::tesseract {
namespace {

constexpr int kSide = 2;  // q: each depth layer is a 2 x 2 mesh
/// b = 4 sequences, so that d*q = 4 token blocks hold whole sequences at d = 2; m = 16 tokens.
constexpr BlockShape kShape{4, 4, 16, 4};

/// A one-element tensor holding `value`, for the scalar rows of the table.
Tensor scalar(Device& device, double value) {
  Tensor t = device.empty({1}, DType::f64);
  device.fill(t, value);
  return t;
}

/// The tolerance of one tensor. The key bias's gradient is zero in exact arithmetic (softmax
/// ignores a shift shared by a row), so both sides are round-off: as verify does, its atol is
/// set by its sibling d_bq's scale and no relative bound applies.
Tolerance tolerance_of(const std::string& name, const verify::HostArrays& reference, bool exact) {
  Tolerance t = verify::tolerance_for(DType::f64, exact);
  const verify::ZeroGradient* zero = verify::zero_gradient(name);
  const double own_scale = verify::rms(reference.at(name).values);
  if (zero != nullptr && !exact && own_scale > 0) {
    t.atol_scale *= verify::rms(reference.at(std::string(zero->scale_from)).values) / own_scale;
    t.max_rel_l2 = INFINITY;
  }
  return t;
}

bool run_workload(Lesson& lesson, Workload workload) {
  const int p = lesson.size(), d = p / (kSide * kSide);
  const bool exact = workload == Workload::linear_pair;
  const verify::HostArrays inputs = verify::make_inputs(
      kShape, exact ? 11 : 12, workload, exact ? verify::Values::integer : verify::Values::real);
  const verify::HostArrays reference = verify::reference_outputs(kShape, inputs, workload);
  const std::vector<TensorPlacement> placements =
      tp2p5d::Scheme2p5D(d).placements(p, kShape, workload);
  const auto place = [&](std::string_view name) -> const TensorPlacement& {
    return find_placement(placements, name);
  };
  if (exact) {
    lesson.print_shards({{"X", "[m/(dq), h/q]", &place("x")},
                         {"W1", "[h/q, 4h/q]", &place("w1")},
                         {"b1", "[4h/q]", &place("b1")},
                         {"W2", "[4h/q, h/q]", &place("w2")},
                         {"Y", "[m/(dq), h/q]", &place("y")}});
    if (lesson.rank() == 0) {
      fmt::print("coordinates (i,j,k) of rank = j + q i + q^2 k:");
      for (int r = 0; r < p; ++r) {
        fmt::print(" {}=({},{},{})", r, (r % (kSide * kSide)) / kSide, r % kSide,
                   r / (kSide * kSide));
      }
      fmt::print("\n");
    }
  }

  Device& device = lesson.device();
  Grid2p5D grid = build_tesseract_grid(lesson.world(), d);
  TensorMap parameters;
  for (const auto& [name, array] : inputs) {
    if (is_parameter(name)) parameters.emplace(name, lesson.shard(array, place(name)));
  }
  // The depth layer's own 2D block on its b/(d q) sequences per mesh row.
  auto module = tp2d::make_mesh_module(device, grid.layer, kShape, kShape.b / (d * kSide), workload,
                                       parameters);
  TensorMap outputs;
  outputs.emplace("y", module->forward(lesson.shard(inputs.at("x"), place("x"))));
  outputs.emplace("dx", module->backward(lesson.shard(inputs.at("dy"), place("dy"))));

  CommCounters& counters = lesson.world().counters();
  counters.reset();
  TensorMap gradients = module->gradients();
  all_reduce_over_depth(*grid.depth, gradients);
  double calls = 0, elements = 0;  // every collective of the exercise's depth step, any group
  for (const CollectiveCount& c : counters.snapshot()) {
    calls += static_cast<double>(c.calls);
    elements += static_cast<double>(c.elements);
  }
  double model_calls = 0, model_elements = 0;
  const model::RankCost cost = model::cost_2p5d(kShape, kSide, d, workload);
  for (const model::PredictedCollective& c : cost.comm.backward.rows()) {
    if (c.group != "depth") continue;
    model_calls += static_cast<double>(c.calls);
    model_elements += static_cast<double>(c.elements);
  }
  outputs.merge(gradients);

  for (const std::string& name : verify::checked_tensors(workload)) {
    lesson.expect(name, reference.at(name), place(name), outputs.at(name),
                  tolerance_of(name, reference, exact));
  }
  const TensorPlacement one = replicated("scalar", {1}, p);
  lesson.expect("depth calls", host_array({1}, {model_calls}), one, scalar(device, calls),
                exact_tolerance());
  lesson.expect("depth N", host_array({1}, {model_elements}), one, scalar(device, elements),
                exact_tolerance());
  const bool pass = lesson.report(fmt::format(
      "2.5D {}, d = {}, q = {}",
      exact ? "linear pair, exact (integer inputs)" : "block, real values (f64 tolerance)", d,
      kSide));
  if (lesson.rank() == 0) {
    fmt::print(
        "  depth calls, depth N: your depth step as the counters saw it, on any group "
        "({:g} all-reduce calls, N = {:g} elements), against model/cost_2p5d.cpp\n",
        calls, elements);
  }
  return pass;
}

bool run(Lesson& lesson) {
  const int p = lesson.size();
  require_world_size(lesson, p == 4 || p == 8,
                     fmt::format("lesson 08 runs d layers of a {0} x {0} mesh, p = {1} d, with "
                                 "d*q dividing the batch of {2}",
                                 kSide, kSide * kSide, kShape.b),
                     {4, 8});
  const bool exact = run_workload(lesson, Workload::linear_pair);
  return run_workload(lesson, Workload::block) && exact;
}

}  // namespace
}  // namespace tplab::lessons::tesseract

int main() {
  return tplab::lessons::run_lesson("lesson 08", tplab::lessons::tesseract::run);
}
