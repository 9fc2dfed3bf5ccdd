// Lesson 08 checker: the 2D block of each depth layer (the library's) on the exercise's grid,
// then the exercise's depth all-reduce; every output and gradient shard against the reference,
// and the depth all-reduce's calls and elements against the cost model (model/cost_2p5d.cpp).
#include <fmt/format.h>

#include <cmath>
#include <optional>

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

/// One workload of the lesson (the exact linear pair, or the block in real values): its inputs,
/// reference, placements, and the grid and module its parts build.
struct Workload2p5D {
  Workload workload;
  verify::HostArrays inputs, reference;
  std::vector<TensorPlacement> placements;
  std::optional<Grid2p5D> grid;
  std::unique_ptr<ParallelModule> module;

  bool exact() const { return workload == Workload::linear_pair; }
  const TensorPlacement& place(std::string_view name) const {
    return find_placement(placements, name);
  }
  std::string title(const char* step, int d) const {
    return fmt::format(
        "2.5D {}, {}, d = {}, q = {}",
        exact() ? "linear pair, exact (integer inputs)" : "block, real values (f64 tolerance)",
        step, d, kSide);
  }
};

Workload2p5D make_workload(int p, Workload workload) {
  const int d = p / (kSide * kSide);
  const bool exact = workload == Workload::linear_pair;
  Workload2p5D w{workload, {}, {}, {}, {}, {}};
  w.inputs = verify::make_inputs(kShape, input_seed(exact ? 11 : 12), workload,
                                 exact ? verify::Values::integer : verify::Values::real);
  w.reference = verify::reference_outputs(kShape, w.inputs, workload);
  w.placements = tp2p5d::Scheme2p5D({.depth = d}).placements(p, kShape, workload);
  return w;
}

/// Builds the depth layer's own 2D block (the library's) on w.grid, on its b/(d q) sequences
/// per mesh row, and runs its forward.
Tensor run_forward(Lesson& lesson, Workload2p5D& w) {
  const int d = lesson.size() / (kSide * kSide);
  TensorMap parameters;
  for (const auto& [name, array] : w.inputs) {
    if (is_parameter(name)) parameters.emplace(name, lesson.shard(array, w.place(name)));
  }
  w.module = tp2d::make_mesh_module(lesson.device(), w.grid->layer, kShape, kShape.b / (d * kSide),
                                    w.workload, parameters);
  return w.module->forward(lesson.shard(w.inputs.at("x"), w.place("x")));
}

/// Forward on the exercise's grid: Y against the reference.
void check_forward(Lesson& lesson, Workload2p5D& w) {
  const int d = lesson.size() / (kSide * kSide);
  w.grid.emplace(build_tesseract_grid(lesson.world(), d));
  const Tensor y = run_forward(lesson, w);
  lesson.expect("y", w.reference.at("y"), w.place("y"), y,
                tolerance_of("y", w.reference, w.exact()));
  lesson.report(w.title("forward", d));
}

/// Backward and the exercise's depth all-reduce: dx, every gradient, and the depth step's
/// calls and elements against the cost model. It runs forward again on the library's grid
/// (Grid2p5D::build), so that the depth step is checked whatever forward's verdict.
void check_backward(Lesson& lesson, Workload2p5D& w) {
  const int p = lesson.size(), d = p / (kSide * kSide);
  w.grid.emplace(Grid2p5D::build(lesson.world(), d));
  run_forward(lesson, w);
  TensorMap outputs;
  outputs.emplace("dx", w.module->backward(lesson.shard(w.inputs.at("dy"), w.place("dy"))));

  CommCounters& counters = lesson.world().counters();
  counters.reset();
  TensorMap gradients = w.module->gradients();
  all_reduce_over_depth(*w.grid->depth, gradients);
  double calls = 0, elements = 0;  // every collective of the exercise's depth step, any group
  for (const CollectiveCount& c : lesson.counted(counters.snapshot())) {
    calls += static_cast<double>(c.calls);
    elements += static_cast<double>(c.elements);
  }
  double model_calls = 0, model_elements = 0;
  const model::RankCost cost = model::cost_2p5d(kShape, kSide, d, w.workload);
  for (const model::PredictedCollective& c : cost.comm.backward.rows()) {
    if (c.group != "depth") continue;
    model_calls += static_cast<double>(c.calls);
    model_elements += static_cast<double>(c.elements);
  }
  outputs.merge(gradients);

  for (const std::string& name : verify::checked_tensors(w.workload)) {
    if (name == "y") continue;
    lesson.expect(name, w.reference.at(name), w.place(name), outputs.at(name),
                  tolerance_of(name, w.reference, w.exact()));
  }
  Device& device = lesson.device();
  const TensorPlacement one = replicated("scalar", {1}, p);
  lesson.expect_measured("depth calls", host_array({1}, {model_calls}), one, scalar(device, calls),
                         exact_tolerance());
  lesson.expect_measured("depth N", host_array({1}, {model_elements}), one,
                         scalar(device, elements), exact_tolerance());
  lesson.report(w.title("backward", d));
  if (lesson.speaks()) {
    fmt::print(
        "  depth calls, depth N: your depth step as the counters saw it, on any group "
        "({:g} all-reduce calls, N = {:g} elements), against model/cost_2p5d.cpp\n",
        calls, elements);
  }
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  require_world_size(lesson, p == 4 || p == 8,
                     fmt::format("lesson 08 runs d layers of a {0} x {0} mesh, p = {1} d, with "
                                 "d*q dividing the batch of {2}",
                                 kSide, kSide * kSide, kShape.b),
                     {4, 8});
  std::vector<Workload2p5D> workloads;
  workloads.push_back(make_workload(p, Workload::linear_pair));
  workloads.push_back(make_workload(p, Workload::block));
  const Workload2p5D& pair = workloads.front();
  lesson.print_shards({{"X", "[m_DI, h_J]", &pair.place("x")},
                       {"W1", "[h_I, 4h_J]", &pair.place("w1")},
                       {"b1", "[4h_J]", &pair.place("b1")},
                       {"W2", "[4h_I, h_J]", &pair.place("w2")},
                       {"Y", "[m_DI, h_J]", &pair.place("y")}});
  if (lesson.speaks()) {
    fmt::print("coordinates (i,j,k) of rank = j + q i + q^2 k:");
    for (int r = 0; r < p; ++r) {
      fmt::print(" {}=({},{},{})", r, (r % (kSide * kSide)) / kSide, r % kSide,
                 r / (kSide * kSide));
    }
    fmt::print("\n");
  }
  lesson.part("forward", [&] {
    for (Workload2p5D& w : workloads) check_forward(lesson, w);
  });
  lesson.part("backward", [&] {
    for (Workload2p5D& w : workloads) check_backward(lesson, w);
  });
}

}  // namespace
}  // namespace tplab::lessons::tesseract

int main() {
  return tplab::lessons::run_lesson("lesson 08", tplab::lessons::tesseract::run);
}
