#include "job_series.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "mpi_launch.hpp"

namespace tplab::app {

SeriesResult run_series(
    const std::vector<Job>& jobs,
    const std::function<std::vector<std::string>(const Job&, const std::string&)>& arguments,
    int timeout_seconds) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tplab-jobs-{}", getpid());
  std::filesystem::create_directories(dir);
  SeriesResult result;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    const auto json = dir / fmt::format("{}-{}.json", job.scheme, job.np);
    const std::vector<std::string> args = arguments(job, json.string());
    fmt::print("\n[{}/{}] mpiexec -n {} tplab {} --scheme {} ...\n", i + 1, jobs.size(), job.np,
               args.front(), job.scheme);
    std::fflush(stdout);
    const int code = run_under_mpiexec(job.np, args, timeout_seconds);
    result.usage_error = result.usage_error || code == kExitUsage;
    bool wrote = false;
    if (std::ifstream in(json); in && code != kTimedOut) {
      nlohmann::json written = nlohmann::json::parse(in);
      for (auto& r : written["runs"]) result.runs.push_back(std::move(r));
      wrote = true;
    }
    if (code == kTimedOut) {
      result.failures.push_back(
          fmt::format("{} np={}: timed out after {} s", job.scheme, job.np, timeout_seconds));
    } else if (code != 0 && (code != kExitFailed || !wrote)) {
      result.failures.push_back(fmt::format("{} np={}: exited {}", job.scheme, job.np, code));
      if (!wrote && code != kExitUsage) {
        fmt::print(stderr,
                   "tplab: mpiexec -n {} ended with {} before tplab wrote a result. If mpiexec "
                   "said there are not enough slots, allow more ranks than cores: export "
                   "OMPI_MCA_rmaps_base_oversubscribe=1 (Open MPI) and run again.\n",
                   job.np, code);
      }
    }
  }
  std::filesystem::remove_all(dir);
  return result;
}

}  // namespace tplab::app
