#include "mpi_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "free_space.hpp"
#include "hostfile.hpp"
#include "launch_preflight.hpp"
#include "mpi_launch.hpp"
#include "output_lock.hpp"
#include "safe_output.hpp"

namespace tplab::app {

namespace {

/// Says, at the end of a series whose --json could not be written last, which jobs' results
/// the file lacks.
void report_unwritten(const LaunchPlan& plan, const SeriesResult& series) {
  std::vector<std::string> missing;
  for (std::size_t i = series.jobs_in_json; i < series.finished; ++i) {
    missing.push_back(fmt::format("{} np={}", plan.jobs[i].label, plan.jobs[i].np));
  }
  fmt::print(stderr,
             "tplab: NOT WRITTEN: the results of {} of {} jobs ({}) are not in --json: {}\n",
             missing.size(), series.finished, fmt::join(missing, ", "), series.json_error);
}

}  // namespace

SeriesResult launch_jobs(const CLI::App& command, const LaunchOptions& o, const LaunchPlan& plan,
                         const std::function<nlohmann::json(const SeriesResult&)>& document) {
  for (const LeftOut& l : plan.left_out) fmt::print("left out: {}: {}\n", l.run, l.why);
  std::optional<OutputLock> json_lock;  // held until the last job's results are written
  if (o.json) {
    require_writable_file(*o.json, "--json");
    require_free_space(
        *o.json, plan.result_bytes != 0 ? plan.result_bytes : kResultBytesPerJob * plan.jobs.size(),
        "--json");
    json_lock.emplace(*o.json, "--json");
  }
  preflight(plan, o.allow_many_ranks, host_count(o.hosts));
  int most_ranks = 1;
  for (const JobPlan& j : plan.jobs) most_ranks = std::max(most_ranks, j.np);
  const LaunchSettings launch = launch_settings(o.timeout, o.hosts, most_ranks);
  const auto arguments = [&](std::size_t i, const std::string& json) {
    std::vector<ArgumentOverride> overrides = plan.jobs[i].overrides;
    overrides.push_back({"--np", {std::to_string(plan.jobs[i].np)}});
    overrides.push_back({"--json", {json}});
    return job_arguments(command, overrides);
  };
  std::string json_error;
  std::size_t jobs_in_json = 0;
  SeriesResult series = run_series(plan, arguments, launch, [&](const SeriesResult& so_far) {
    if (!o.json) return;
    try {
      write_file_safely(*o.json, document(so_far).dump(2) + "\n", "--json");
      json_error.clear();
      jobs_in_json = so_far.finished;
    } catch (const UsageError& e) {
      json_error = e.what();
      fmt::print(stderr, "tplab: {}; the other jobs still run, and it is tried again after each\n",
                 json_error);
    }
  });
  series.json_error = json_error;
  series.jobs_in_json = jobs_in_json;
  if (!json_error.empty()) report_unwritten(plan, series);
  return series;
}

int exit_code_of(const SeriesResult& series, bool pass) {
  if (series.usage_error || !series.json_error.empty()) return kExitUsage;
  if (series.not_run) return kJobNotRun;
  if (series.timed_out) return kTimedOut;
  if (series.crashed) return kExitInternal;
  return pass && series.failures.empty() ? 0 : kExitFailed;
}

void run_over_mpi(CLI::App& command, int& exit_code, std::function<int()> in_world,
                  std::function<int()> drive) {
  command.callback([&exit_code, in_world = std::move(in_world), drive = std::move(drive)] {
    exit_code = launched_by_mpi() ? in_world() : drive();
  });
}

}  // namespace tplab::app
