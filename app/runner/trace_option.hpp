/// @file
/// The file each job of a series writes its ranks' timelines to, for --trace FILE
/// (options/output_options.hpp declares it; host/trace_file.hpp writes them).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "launch_plan.hpp"

namespace tplab::app {

/// The trace file of the job `label` on `np` ranks, one of `jobs`: `trace` itself for a single
/// job; otherwise `trace`'s stem, the job's label and world size, and `trace`'s extension:
/// run.json -> run.1d-strong-scaling-b-8-s-128-h-512-heads-8-np2.json. Refuses (UsageError) a file
/// that could not be written, or that is the --json `json`.
std::string job_trace_path(const std::string& trace, const std::string& label, int np,
                           std::size_t jobs, const std::optional<std::string>& json);

/// Gives every job of `plan` its --trace (job_trace_path) when there is a `trace`, each checked
/// before anything runs, and prints where each goes.
void plan_traces(LaunchPlan& plan, const std::optional<std::string>& trace,
                 const std::optional<std::string>& json);

}  // namespace tplab::app
