/// @file
/// Every layout of a cluster, priced, and the best.
#include "plan/cluster_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "scheme/scheme.hpp"

namespace tplab::model::plan {
namespace {

/// Whether `a` beats `b`: fitting in memory first, then the shorter step.
bool faster(const LayoutEstimate& a, const LayoutEstimate& b) {
  if (a.fits_memory != b.fits_memory) return a.fits_memory;
  return a.step_s() < b.step_s();
}

/// The schemes tried at `tp`: none at TP 1, else the request's.
std::vector<std::string> schemes_at(const PlanRequest& r, int tp) {
  if (tp == 1) return {"none"};
  return r.schemes;
}

std::string no_layout_message(const PlanRequest& r, const std::vector<SkippedLayout>& skipped) {
  std::set<std::string> reasons;
  for (const SkippedLayout& s : skipped) reasons.insert(s.why);
  return fmt::format("no DP x TP x PP layout of {} devices can run this model: {}", r.devices,
                     fmt::join(reasons, "; "));
}

/// Throws UsageError when no DP degree of the cluster splits the global batch into
/// micro-batches: then no layout at all can run.
void check_batch_splits(const PlanRequest& r) {
  std::vector<int> dp_degrees;
  for (int dp = 1; dp <= r.devices; ++dp) {
    if (r.devices % dp == 0) dp_degrees.push_back(dp);
  }
  const std::int64_t b = r.batch.micro_batch, B = r.batch.global_batch;
  if (std::any_of(dp_degrees.begin(), dp_degrees.end(), [&](int dp) { return B % (dp * b) == 0; }))
    return;
  throw UsageError(fmt::format(
      "--global-batch {} is not divisible by DP x --micro-batch {} for any DP degree of {} "
      "devices ({}); give a multiple of {} x DP, such as {} for DP {}",
      B, b, r.devices, alternatives(dp_degrees), b, b * r.devices, r.devices));
}

/// The layouts of r.devices with the degrees the request fixes (--pp, --dp); throws UsageError
/// when none has them.
std::vector<ParallelLayout> layouts_asked(const PlanRequest& r) {
  std::vector<ParallelLayout> asked;
  for (const ParallelLayout& layout : factorisations(r.devices, r.order)) {
    if ((r.only_pp == 0 || layout.pp == r.only_pp) && (r.only_dp == 0 || layout.dp == r.only_dp)) {
      asked.push_back(layout);
    }
  }
  if (asked.empty()) {
    std::vector<std::string> fixed;
    if (r.only_dp > 0) fixed.push_back(fmt::format("DP = {} (--dp)", r.only_dp));
    if (r.only_pp > 0) fixed.push_back(fmt::format("PP = {} (--pp)", r.only_pp));
    throw UsageError(fmt::format(
        "no DP x TP x PP layout of {} devices has {}: DP x TP x PP = {}, so DP x PP must divide "
        "{}",
        r.devices, fmt::join(fixed, " and "), r.devices, r.devices));
  }
  return asked;
}

}  // namespace

ClusterPlan plan_cluster(const PlanRequest& r) {
  check_request(r);
  check_batch_splits(r);
  ClusterPlan plan;
  for (const ParallelLayout& layout : layouts_asked(r)) {
    for (const std::string& scheme : schemes_at(r, layout.tp)) {
      const std::string why = why_layout_cannot_run(r, layout, scheme);
      if (!why.empty()) {
        plan.skipped.push_back({layout, scheme, why});
        continue;
      }
      plan.layouts.push_back(estimate_layout(r, layout, scheme));
      const std::size_t index = plan.layouts.size() - 1;
      const bool fits = plan.layouts.back().fits_memory;
      if (fits && (!plan.best || faster(plan.layouts.back(), plan.layouts[*plan.best]))) {
        plan.best = index;
      }
    }
  }
  if (plan.layouts.empty()) throw UsageError(no_layout_message(r, plan.skipped));
  return plan;
}

const LayoutEstimate* fastest_at_tp(const ClusterPlan& plan, int tp) {
  const LayoutEstimate* fastest = nullptr;
  for (const LayoutEstimate& e : plan.layouts) {
    if (e.layout.tp == tp && (fastest == nullptr || faster(e, *fastest))) fastest = &e;
  }
  return fastest;
}

std::vector<int> tp_degrees(const ClusterPlan& plan) {
  std::set<int> degrees;
  for (const LayoutEstimate& e : plan.layouts) degrees.insert(e.layout.tp);
  return {degrees.begin(), degrees.end()};
}

}  // namespace tplab::model::plan
