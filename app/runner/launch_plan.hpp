/// @file
/// What a command is about to launch: its jobs, each with its world size, what it allocates and
/// what its arguments change from the caller's. The preflight checks it and the runner runs it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "job_arguments.hpp"

namespace tplab::app {

/// One job a command launches.
struct JobPlan {
  std::string label;  ///< what it runs, for progress and messages: "2d", "1d strong scaling"
  int np = 1;         ///< its world size (the job gets --np np)
  std::vector<ArgumentOverride> overrides;  ///< what its arguments change from the caller's
  double bytes_per_rank = 0;                ///< what each rank allocates for its own work
};

/// A run a command's defaults would have made but cannot, and why: it is said, not run.
struct LeftOut {
  std::string run;  ///< "3d at np=54"
  std::string why;  ///< the rule it breaks, with what would work
};

/// Every job of a command, run one after another.
struct LaunchPlan {
  std::vector<JobPlan> jobs;  ///< in the order they run
  /// What the defaults would have run besides, and why each cannot run; launch_jobs prints them
  /// before the first job.
  std::vector<LeftOut> left_out;
  /// What each rank's tensors are, for the preflight's message: "the whole problem and the
  /// reference's answer in f64".
  std::string tensors;
  /// What makes them smaller, for the same message: "a smaller --shape".
  std::string smaller;
  std::string key = "runs";  ///< the key of the records in every job's result
  /// About how large the --json of the whole series grows; 0 for kResultBytesPerJob a job.
  std::uintmax_t result_bytes = 0;
};

/// What one job adds to a series' --json, about, where its command does not say: verify's
/// largest jobs hold a dozen runs of about 12 KiB each (every tensor and every rank's
/// collectives).
inline constexpr std::uintmax_t kResultBytesPerJob = 256 * 1024;

}  // namespace tplab::app
