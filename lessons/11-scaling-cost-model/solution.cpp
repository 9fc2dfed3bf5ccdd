// Lesson 11, the answer: the four all-reduces of a 1D block, counted and timed with the
// alpha-beta model.
#include "flops.hpp"
#include "lesson.hpp"

namespace tplab::lessons::cost_model {
namespace {

/// The all-reduces of [m, h] in one block's forward and backward: g after the attention's
/// output projection and after fc2 (forward), f before Q/K/V and before fc1 (backward).
constexpr int kAllReduces = 4;

/// What one rank sends in a ring all-reduce of `elements` on t ranks: a reduce-scatter of
/// t - 1 steps of N/t, then an all-gather of t - 1 more.
double ring_all_reduce_bus_elements(std::int64_t elements, int t) {
  return 2.0 * (t - 1) / t * static_cast<double>(elements);
}

}  // namespace

// The library's version: model/cost_1d.cpp, cost_1d, whose comm rows count the same calls and
// elements.
double bus_elements_1d(const BlockShape& shape, int t) {
  return kAllReduces * ring_all_reduce_bus_elements(shape.tokens() * shape.h, t);
}

// The library's version: model/projection.cpp, project, which times each row of cost_1d with
// model/alpha_beta.cpp, collective_time.
StepTime step_time_1d(const BlockShape& shape, int t, const model::HardwareProfile& profile) {
  StepTime step;
  step.compute_s = model::block_step_flops(shape) / t / profile.matmul_flops_per_s;
  const bool inter_node = t > profile.gpus_per_node;
  const model::Link& link = inter_node ? *profile.inter_node : profile.intra_node;
  const model::LinkRate& rate = link.rate_of(Collective::all_reduce);
  // Each all-reduce: 2(t-1) ring steps of latency alpha, and its bus bytes at the link's rate.
  const double latency_s = 2.0 * (t - 1) * rate.latency_s;
  const double bandwidth_s = ring_all_reduce_bus_elements(shape.tokens() * shape.h, t) *
                             profile.bytes_per_element / rate.bandwidth_bytes_per_s;
  step.comm_s = kAllReduces * (latency_s + bandwidth_s);
  return step;
}

int first_comm_bound_t(const BlockShape& shape, const model::HardwareProfile& profile, int max_t) {
  for (int t = 1; t <= max_t; t *= 2) {
    const StepTime step = step_time_1d(shape, t, profile);
    if (step.comm_s > step.compute_s) return t;
  }
  return 0;
}

}  // namespace tplab::lessons::cost_model
