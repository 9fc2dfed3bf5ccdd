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
#include <string>
#include <vector>

#include "job_arguments.hpp"
#include "job_series.hpp"
#include "launch_options.hpp"

namespace tplab::app {

/// One job a command launches.
struct JobPlan {
  std::string label;  ///< what it runs, for progress and messages: "2d", "1d strong scaling"
  int np = 1;         ///< its world size (the job gets --np np)
  std::vector<ArgumentOverride> overrides;  ///< what its arguments change from the caller's
  double bytes_per_rank = 0;                ///< what each rank allocates, for the preflight
};

/// Every job of a command, run one after another.
struct LaunchPlan {
  std::vector<JobPlan> jobs;  ///< in the order they run
  /// What each rank's tensors are and what makes them smaller, for the preflight's message:
  /// "the whole problem and the reference's answer in f64", "a smaller --shape".
  std::string tensors, smaller;
  std::string key = "runs";  ///< the key of the records in every job's result
};

/// Refuses what cannot run (a --json that cannot be written, too many ranks, too little
/// memory: launch_preflight.hpp), then runs each job of `plan` as `mpiexec -n np tplab
/// <job_arguments(command, overrides + --np + --json)>` and gathers the records. After every
/// job, `document(series so far)` is written to o.json when there is one.
SeriesResult launch_jobs(const CLI::App& command, const LaunchOptions& o, const LaunchPlan& plan,
                         const std::function<nlohmann::json(const SeriesResult&)>& document);

/// The exit code of a series: 2 when a job refused its input, 124 when one timed out, 0 when
/// `pass` and no job failed, 1 otherwise.
int exit_code_of(const SeriesResult& series, bool pass);

/// Makes `command` run `in_world` on each rank when mpiexec started this process, and
/// `drive` (which launches the jobs) otherwise; either's exit code lands in `exit_code`.
void run_over_mpi(CLI::App& command, int& exit_code, std::function<int()> in_world,
                  std::function<int()> drive);

}  // namespace tplab::app
