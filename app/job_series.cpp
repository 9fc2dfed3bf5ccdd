#include "job_series.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "mpi_launch.hpp"

namespace tplab::app {

SeriesResult run_series(
    const std::vector<Job>& jobs,
    const std::function<std::vector<std::string>(const Job&, const std::string&)>& arguments,
    int timeout_seconds, const std::string& key) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tplab-jobs-{}", getpid());
  std::filesystem::create_directories(dir);
  SeriesResult result;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    const auto json = dir / fmt::format("job-{}.json", i);
    const std::vector<std::string> args = arguments(job, json.string());
    std::string command;  // the subcommand words, without the options
    for (const auto& a : args) {
      if (a.starts_with("-")) break;
      command += " " + a;
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    fmt::print("\n[{}/{}, {:.0f} s] mpiexec -n {} tplab{}: {}\n", i + 1, jobs.size(),
               elapsed.count(), job.np, command, job.label);
    std::fflush(stdout);
    const int code = run_under_mpiexec(job.np, args, timeout_seconds);
    result.usage_error = result.usage_error || code == kExitUsage;
    result.timed_out = result.timed_out || code == kTimedOut;
    bool wrote = false;
    if (std::ifstream in(json); in && code != kTimedOut) {
      nlohmann::json written = nlohmann::json::parse(in);
      for (auto& r : written[key]) result.runs.push_back(std::move(r));
      wrote = true;
    }
    if (code == kTimedOut) {
      result.failures.push_back(
          fmt::format("{} np={}: timed out after {} s", job.label, job.np, timeout_seconds));
    } else if (code != 0 && (code != kExitFailed || !wrote)) {
      result.failures.push_back(fmt::format("{} np={}: exited {}", job.label, job.np, code));
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
