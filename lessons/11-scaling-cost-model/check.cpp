// Lesson 11 checker: the exercise's 1D cost against what the communication counters measure
// in a run of the library's 1D block on this many ranks, and against the cost model (model/)
// on the shipped hardware profiles: bus elements, compute and communication seconds, and the
// first t at which 1D is communication-bound.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "cost_1d.hpp"
#include "harness.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "projection.hpp"
#include "registry/make_scheme.hpp"

namespace tplab::lessons::cost_model {
namespace {

/// The block the lesson runs and measures: b = 2, s = 8, h = 16, n = 4.
constexpr BlockShape kRunShape{2, 8, 16, 4};
/// A GPT-3-sized block (b = 1, s = 2048, h = 12288, n = 96) and a small one (h = 1024).
constexpr std::array<BlockShape, 2> kModelShapes{{{1, 2048, 12288, 96}, {1, 2048, 1024, 16}}};
constexpr std::array<const char*, 2> kProfiles{"dgx-h100", "dgx-a100"};
constexpr std::array<int, 5> kGroupSizes{1, 2, 4, 8, 16};  // t; 16 spans two 8-GPU nodes
constexpr int kMaxT = 16;

/// A one-element tensor holding `value`, for the scalar rows of the table.
Tensor scalar(Device& device, double value) {
  Tensor t = device.empty({1}, DType::f64);
  device.fill(t, value);
  return t;
}

/// `values` (row-major) as a tensor of this device with these extents, for one row of the table.
Tensor values_tensor(Device& device, const Extents& extents, const std::vector<double>& values) {
  Tensor t = device.empty(extents, DType::f64);
  device.upload(values, t);
  return t;
}

/// The first t of kGroupSizes (up to kMaxT) at which the model's projection of 1D spends
/// longer communicating than computing; 0 when none does.
int model_first_comm_bound_t(const BlockShape& shape, const model::HardwareProfile& profile) {
  for (int t = 1; t <= kMaxT; t *= 2) {
    const model::Projection p = model::project("1d", {}, t, shape, profile);
    if (p.fits() && p.comm_s() > p.compute_s) return t;
  }
  return 0;
}

/// The model's 1D projection on `profile` for t = kGroupSizes, as a table on rank 0.
void print_projection(const BlockShape& shape, const model::HardwareProfile& profile) {
  fmt::print("\n1D on {} for one block {} (the cost model):\n", profile.name, to_string(shape));
  fmt::print("  {:>3}  {:>11}  {:>11}  {:>6}  {}\n", "t", "compute ms", "comm ms", "share", "link");
  for (int t : kGroupSizes) {
    const model::Projection p = model::project("1d", {}, t, shape, profile);
    fmt::print("  {:>3}  {:>11.3f}  {:>11.3f}  {:>5.0f}%  {}\n", t, p.compute_s * 1e3,
               p.comm_s() * 1e3, 100 * p.comm_share(),
               t == 1 ? "-" : (t > profile.gpus_per_node ? "inter-node" : "intra-node"));
  }
}

void run(Lesson& lesson) {
  const int p = lesson.size();
  require_world_size(
      lesson, kRunShape.heads % p == 0,
      fmt::format("lesson 11 runs 1D on t ranks, each holding whole heads of {}", kRunShape.heads),
      {1, 2, 4});
  const std::vector<TensorPlacement> placements =
      make_scheme("1d")->placements(p, kRunShape, Workload::block);
  lesson.print_shards({{"X", "[m, h]", &find_placement(placements, "x")},
                       {"Wq", "[h, h_T]", &find_placement(placements, "wq")},
                       {"W1", "[h, 4h_T]", &find_placement(placements, "w1")},
                       {"W2", "[4h_T, h]", &find_placement(placements, "w2")}});

  lesson.part("forward", [&] {
    // The library's 1D block on these ranks, forward and backward, counted.
    verify::RunConfig config;
    config.scheme = "1d";
    config.shape = kRunShape;
    const verify::RunResult measured_run =
        verify::run_verification(lesson.world(), lesson.device(), config);
    double measured = 0;
    for (const auto* phase : {&measured_run.comm_forward, &measured_run.comm_backward}) {
      for (const CollectiveCount& c : *phase) measured += c.bus_elements;
    }

    // The model's counts and times, and the exercise's, on the shipped profiles.
    const auto profiles = model::available_profiles();
    std::vector<double> model_bus, bus, model_compute, compute, model_comm, comm, model_t, first_t;
    for (const BlockShape& shape : kModelShapes) {
      for (int t : kGroupSizes) {
        model_bus.push_back(
            model::cost_1d(shape, t, Workload::block).comm.total().total_bus_elements());
        bus.push_back(bus_elements_1d(shape, t));
      }
    }
    for (const char* name : kProfiles) {
      const model::HardwareProfile& profile = model::find_profile(profiles, name);
      for (int t : kGroupSizes) {
        const model::Projection projection = model::project("1d", {}, t, kModelShapes[0], profile);
        const StepTime step = step_time_1d(kModelShapes[0], t, profile);
        model_compute.push_back(projection.compute_s);
        compute.push_back(step.compute_s);
        model_comm.push_back(projection.comm_s());
        comm.push_back(step.comm_s);
      }
      for (const BlockShape& shape : kModelShapes) {
        model_t.push_back(model_first_comm_bound_t(shape, profile));
        first_t.push_back(first_comm_bound_t(shape, profile, kMaxT));
      }
    }

    Device& device = lesson.device();
    const Tolerance f64 = verify::tolerance_for(DType::f64, false);
    const std::int64_t sizes = static_cast<std::int64_t>(kGroupSizes.size());
    const TensorPlacement one = replicated("scalar", {1}, p);
    const TensorPlacement per_shape = replicated("shape x t", {2, sizes}, p);
    const TensorPlacement per_profile = replicated("profile x t", {2, sizes}, p);
    const TensorPlacement crossover = replicated("profile x shape", {2, 2}, p);
    lesson.expect("sent, run", host_array({1}, {measured}), one,
                  scalar(device, bus_elements_1d(kRunShape, p)), f64);
    lesson.expect("sent, model", host_array({2, sizes}, model_bus), per_shape,
                  values_tensor(device, {2, sizes}, bus), f64);
    lesson.expect("compute_s", host_array({2, sizes}, model_compute), per_profile,
                  values_tensor(device, {2, sizes}, compute), f64);
    lesson.expect("comm_s", host_array({2, sizes}, model_comm), per_profile,
                  values_tensor(device, {2, sizes}, comm), f64);
    lesson.expect("first bound", host_array({2, 2}, model_t), crossover,
                  values_tensor(device, {2, 2}, first_t), exact_tolerance());
    lesson.report("the cost of 1D: counted, modelled, timed");
    if (lesson.speaks()) {
      fmt::print(
          "  sent, run: elements one rank sent in the library's 1D block on {} ranks "
          "(b, s, h, n = 2, 8, 16, 4), as counted: {:g}\n",
          p, measured);
      fmt::print("  sent, model: [shape, t] for the two shapes below and t = 1, 2, 4, 8, 16\n");
      fmt::print("  compute_s, comm_s: [profile, t] for dgx-h100 and dgx-a100, the first shape\n");
      fmt::print(
          "  first bound: [profile, shape], the first t at which 1D is communication-bound: "
          "{}\n",
          model_t);
      for (const BlockShape& shape : kModelShapes) {
        print_projection(shape, model::find_profile(profiles, "dgx-h100"));
      }
      std::fflush(stdout);
    }
  });
}

}  // namespace
}  // namespace tplab::lessons::cost_model

int main() {
  return tplab::lessons::run_lesson("lesson 11", tplab::lessons::cost_model::run);
}
