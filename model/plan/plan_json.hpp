/// @file
/// The JSON of `tplab model --plan --json FILE`: the request, every layout priced, the skipped
/// ones with their reasons, and the best (bench/report/plan_plot.py draws it).
#pragma once

#include <nlohmann/json.hpp>

#include "plan/cluster_plan.hpp"

namespace tplab::model::plan {

/// {"model", "batch", "cluster", "assumptions", "layouts": [...], "skipped": [...], "best"}.
/// Seconds, bytes and FLOPs per second throughout; "best" is the index in "layouts" of the
/// fastest that fits in memory, null when none fits.
nlohmann::json plan_json(const PlanRequest& request, const ClusterPlan& plan);

}  // namespace tplab::model::plan
