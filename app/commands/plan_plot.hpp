/// @file
/// `tplab model --plan --plot FILE`: the plan's step time and memory against the TP degree,
/// drawn by bench/report/plan_plot.py from the plan's JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tplab::app {

/// Writes `plan` (model::plan::plan_json's document) to a private folder and runs
/// `python3 bench/report/plan_plot.py` on it to draw the PNG `png`. Throws UsageError when
/// python3 cannot be started or the plot script refuses (its message is on standard error).
void draw_plan_plot(const nlohmann::json& plan, const std::string& png);

}  // namespace tplab::app
