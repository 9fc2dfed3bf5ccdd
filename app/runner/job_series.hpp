/// @file
/// Running a series of mpiexec jobs of tplab itself and collecting their JSON results.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job_folder.hpp"
#include "launch_plan.hpp"
#include "mpi_launch.hpp"

namespace tplab::app {

/// A job that crashed, timed out, refused its input or left no result of its own.
struct JobFailure {
  std::string job;           ///< the job's label
  int np = 1;                ///< its world size
  std::string exit_reason;   ///< how it ended: "timed out after 300 s", "crashed (exit 3)" ...
  std::string last_message;  ///< its last words on standard error ("" when it said nothing)

  /// "2d np=4: a process ended on signal 9 (Killed), before it wrote a result; last message:
  /// ..." for the summary.
  std::string describe() const;
  /// {"job", "np", "exit_reason", "last_message"}.
  nlohmann::json to_json() const;
};

/// What a series of jobs produced.
struct SeriesResult {
  nlohmann::json runs = nlohmann::json::array();  ///< every job's records under `key`, in order
  std::vector<JobFailure> failures;               ///< jobs that failed, and how
  std::size_t planned = 0;                        ///< jobs in the series
  std::size_t finished = 0;                       ///< jobs that have ended so far
  bool usage_error = false;                       ///< some job refused its input (exit 2)
  bool timed_out = false;                         ///< some job ran past the timeout (exit 124)
  bool not_run = false;  ///< some job could not run or was ended from outside (exit 5)
  /// Why the last write of --json failed ("" when it did not): the file then holds only the
  /// results of the first `jobs_in_json` jobs (exit 2).
  std::string json_error;
  std::size_t jobs_in_json = 0;  ///< jobs whose results the --json file holds
  bool crashed = false;          ///< some job crashed (exit 3)

  /// Whether every job has ended.
  bool complete() const { return finished == planned; }
};

/// Runs `mpiexec -n np tplab <arguments(i, json_path)>` for each job i of `plan` in turn,
/// showing progress, each launched as `launch` says (deadline, hosts), and gathers the array
/// under plan.key ("runs", "rows") that each job writes to json_path, a file of the series'
/// private JobFolder.
/// After each job, `after_each_job` sees the series so far (to write it out, so that nothing is
/// lost when a later job crashes or the launcher is stopped).
SeriesResult run_series(
    const LaunchPlan& plan,
    const std::function<std::vector<std::string>(std::size_t, const std::string&)>& arguments,
    const LaunchSettings& launch, const std::function<void(const SeriesResult&)>& after_each_job);

/// The document the `--json` of a series holds: `records` under `key`, "pass" (`pass`, and
/// every job ended without failing), "failures" ([JobFailure::to_json]) and "jobs"
/// ({"planned", "finished"}: fewer finished than planned when the series was cut short).
nlohmann::json series_document(const std::string& key, nlohmann::json records,
                               const SeriesResult& series, bool pass);

}  // namespace tplab::app
