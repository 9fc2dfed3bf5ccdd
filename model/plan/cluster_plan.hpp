/// @file
/// ClusterPlan: every DP x TP x PP layout of a cluster with every TP scheme that can run it,
/// priced, and the best of them: "which DP x TP x PP for my model and cluster?"
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/layout_estimate.hpp"
#include "plan/plan_request.hpp"

namespace tplab::model::plan {

/// A layout (with a TP scheme, at TP > 1) left out, and why.
struct SkippedLayout {
  ParallelLayout layout;  ///< DP x TP x PP
  std::string scheme;     ///< the TP scheme; "none" at TP 1
  std::string why;        ///< the rule it breaks, as why_layout_cannot_run says it
};

/// The answer to one PlanRequest.
struct ClusterPlan {
  /// Every layout that can run: TP 1 once (scheme "none"), every TP > 1 once per scheme that
  /// can split it; in factorisations() order, then the request's scheme order.
  std::vector<LayoutEstimate> layouts;
  std::vector<SkippedLayout> skipped;  ///< the rest, each with its reason
  /// Index into layouts of the fastest step among those that fit in memory; none if none fits.
  std::optional<std::size_t> best;
};

/// Prices every factorisation of request.devices. Throws UsageError (check_request's, or one
/// saying why) when no layout at all can run, such as a global batch that no DP x micro-batch
/// divides.
ClusterPlan plan_cluster(const PlanRequest& request);

/// The fastest layout of `plan` that fits in memory with TP degree `tp`, else the fastest
/// with it at all; null when no layout has that degree.
const LayoutEstimate* fastest_at_tp(const ClusterPlan& plan, int tp);

/// The TP degrees of plan's layouts, ascending, each once.
std::vector<int> tp_degrees(const ClusterPlan& plan);

}  // namespace tplab::model::plan
