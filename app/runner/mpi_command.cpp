#include "mpi_command.hpp"

#include <algorithm>

#include "hostfile.hpp"
#include "launch_preflight.hpp"
#include "mpi_launch.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

void require_room(const LaunchOptions& o, const LaunchPlan& plan) {
  LaunchRequest request{{}, o.allow_many_ranks, plan.tensors, plan.smaller, host_count(o.hosts)};
  for (const JobPlan& j : plan.jobs) request.jobs.push_back({j.label, j.np, j.bytes_per_rank});
  preflight(request);
}

}  // namespace

SeriesResult launch_jobs(const CLI::App& command, const LaunchOptions& o, const LaunchPlan& plan,
                         const std::function<nlohmann::json(const SeriesResult&)>& document) {
  if (o.json) require_writable_file(*o.json, "--json");
  require_room(o, plan);
  int most_ranks = 1;
  std::vector<Job> jobs;
  for (const JobPlan& j : plan.jobs) {
    most_ranks = std::max(most_ranks, j.np);
    jobs.push_back({j.label, j.np});
  }
  const LaunchSettings launch = launch_settings(o.timeout, o.hosts, most_ranks);
  const auto arguments = [&](std::size_t i, const std::string& json) {
    std::vector<ArgumentOverride> overrides = plan.jobs[i].overrides;
    overrides.push_back({"--np", {std::to_string(plan.jobs[i].np)}});
    overrides.push_back({"--json", {json}});
    return job_arguments(command, overrides);
  };
  return run_series(jobs, arguments, launch, plan.key, [&](const SeriesResult& so_far) {
    if (o.json) write_file_safely(*o.json, document(so_far).dump(2) + "\n", "--json");
  });
}

int exit_code_of(const SeriesResult& series, bool pass) {
  if (series.usage_error) return kExitUsage;
  if (series.timed_out) return kTimedOut;
  return pass && series.failures.empty() ? 0 : kExitFailed;
}

void run_over_mpi(CLI::App& command, int& exit_code, std::function<int()> in_world,
                  std::function<int()> drive) {
  command.callback([&exit_code, in_world = std::move(in_world), drive = std::move(drive)] {
    exit_code = launched_by_mpi() ? in_world() : drive();
  });
}

}  // namespace tplab::app
