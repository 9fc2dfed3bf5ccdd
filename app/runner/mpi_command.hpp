/// @file
/// The runner of every command that runs over MPI (verify, train, bench scaling, bench step,
/// bench comm, model --calibrate and --compare). A command declares its options once, says
/// what its jobs are, what runs in the world (run_in_world) and how the results are summed
/// up; the runner does the rest: the preflight, each job's arguments (the caller's own, with
/// the job's overrides), the series of jobs with their progress, and --json written after
/// every job, so nothing is lost when a later one crashes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job_series.hpp"
#include "launch_options.hpp"
#include "launch_plan.hpp"

namespace tplab::app {

/// Refuses what cannot run (a --json that cannot be written, whose file system clearly lacks
/// room for plan.result_bytes (free_space.hpp), or that another run is writing: it is locked,
/// output_lock.hpp, until the series ends; too many ranks, too little memory:
/// launch_preflight.hpp), then runs each job of `plan` as `mpiexec -n np tplab
/// <job_arguments(command, overrides + --np + --json)>` and gathers the records. After every
/// job, `document(series so far)` is written to o.json when there is one; a write that fails
/// (a full disk, a file made unwritable) is said, the series goes on and tries again after the
/// next job, and the end names the jobs whose results the file lacks (SeriesResult::json_error).
SeriesResult launch_jobs(const CLI::App& command, const LaunchOptions& o, const LaunchPlan& plan,
                         const std::function<nlohmann::json(const SeriesResult&)>& document);

/// The exit code of a series, the first that applies: 2 when a job refused its input or its
/// --json lacks results that could not be written, 5 when
/// one could not run or was ended from outside, 124 when one timed out, 3 when one crashed; 0
/// when `pass` and no job failed, 1 otherwise (a check ran and failed).
int exit_code_of(const SeriesResult& series, bool pass);

/// Makes `command` run `in_world` on each rank when mpiexec started this process, and
/// `drive` (which launches the jobs) otherwise; either's exit code lands in `exit_code`.
void run_over_mpi(CLI::App& command, int& exit_code, std::function<int()> in_world,
                  std::function<int()> drive);

}  // namespace tplab::app
