/// @file
/// Running a series of mpiexec jobs of tplab itself and collecting their JSON results.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tplab::app {

/// One job: what it runs (a scheme, "1d strong", "comm": for progress and messages) at a world
/// size.
struct Job {
  /// What the job runs, for progress and messages: a scheme, "1d strong", "comm".
  std::string label;
  /// Its world size: the ranks mpiexec starts.
  int np = 1;
};

/// What a series of jobs produced.
struct SeriesResult {
  nlohmann::json runs = nlohmann::json::array();  ///< every job's records under `key`, in order
  std::vector<std::string> failures;  ///< jobs that crashed, timed out or wrote no result
  bool usage_error = false;           ///< some job refused its input (exit 2)
  bool timed_out = false;             ///< some job ran past the timeout (exit 124)
};

/// Runs `mpiexec -n job.np tplab <arguments(job, json_path)>` for each job in turn, showing
/// progress, each under `timeout_seconds`, and gathers the array under `key` ("runs", "rows")
/// that each job writes to json_path. A job that exits 1 (a check failed) still contributes.
SeriesResult run_series(
    const std::vector<Job>& jobs,
    const std::function<std::vector<std::string>(const Job&, const std::string&)>& arguments,
    int timeout_seconds, const std::string& key = "runs");

}  // namespace tplab::app
