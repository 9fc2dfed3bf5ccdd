#include "job_series.hpp"

#include <fmt/format.h>

#include <chrono>

namespace tplab::app {

namespace {

/// Whether a job that ended as `end` with `result` in its folder failed, and how. A job that
/// exits 1 (a check failed) with a result of its own that says so has not: its result says
/// what failed.
std::optional<JobFailure> failure_of(const JobPlan& job, const JobEnd& end, const JobResult& result,
                                     int timeout_seconds) {
  const auto failure = [&](std::string reason) {
    return JobFailure{job.label, job.np, std::move(reason), end.last_message};
  };
  switch (result.state) {
    case JobResult::State::rejected:
      return failure(fmt::format("{}; what it left is not its result ({}), so it is not used",
                                 end.reason(timeout_seconds), result.why_rejected));
    case JobResult::State::missing:
      return failure(end.code == 0 ? std::string("ended without writing a result")
                                   : end.reason(timeout_seconds) + ", before it wrote a result");
    case JobResult::State::accepted:
      break;
  }
  if (end.exit_code() == kExitFailed && result.document.value("pass", false)) {
    // Every rank exits with its own verdict; rank 0 writes the result. They must agree.
    return failure(
        "a rank found a failure (exit 1) where rank 0's result says every check passed: the "
        "ranks disagree on the verdict, so it is not a pass");
  }
  if (end.exit_code() == 0 || end.exit_code() == kExitFailed) return std::nullopt;
  return failure(end.reason(timeout_seconds));
}

/// Notes in `series` the exit code that `end` calls for (JobEnd::exit_code).
void note_ending(const JobEnd& end, SeriesResult& series) {
  const int code = end.exit_code();
  series.usage_error = series.usage_error || code == kExitUsage;
  series.timed_out = series.timed_out || code == kTimedOut;
  series.not_run = series.not_run || code == kJobNotRun;
  series.crashed = series.crashed || code == kExitInternal;
}

/// Prints `failure` (when there is one) and, when mpiexec lacked slots for the job's `np`
/// ranks, the setting that allows more ranks than cores.
void announce_failure(const std::optional<JobFailure>& failure, const JobEnd& end, int np) {
  if (failure) fmt::print(stderr, "tplab: {}\n", failure->describe());
  if (end.lacked_slots) {
    fmt::print(stderr,
               "tplab: mpiexec said there are not enough slots for {} ranks: allow more ranks "
               "than cores (Open MPI: export OMPI_MCA_rmaps_base_oversubscribe=1) and run "
               "again.\n",
               np);
  }
}

}  // namespace

std::string JobFailure::describe() const {
  std::string text = fmt::format("{} np={}: {}", job, np, exit_reason);
  if (!last_message.empty() && exit_reason.find(last_message) == std::string::npos) {
    text += fmt::format("; last message: {}", last_message);
  }
  return text;
}

nlohmann::json JobFailure::to_json() const {
  return {{"job", job}, {"np", np}, {"exit_reason", exit_reason}, {"last_message", last_message}};
}

SeriesResult run_series(
    const LaunchPlan& plan,
    const std::function<std::vector<std::string>(std::size_t, const std::string&)>& arguments,
    const LaunchSettings& launch, const std::function<void(const SeriesResult&)>& after_each_job) {
  const std::vector<JobPlan>& jobs = plan.jobs;
  const JobFolder folder;
  SeriesResult result;
  result.planned = jobs.size();
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    throw_if_interrupted();
    const JobPlan& job = jobs[i];
    const std::string name = fmt::format("job-{}.json", i);
    const std::vector<std::string> args = arguments(i, folder.file(name));
    std::string command;  // the subcommand words, without the options
    for (const auto& a : args) {
      if (a.starts_with("-")) break;
      command += " " + a;
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    fmt::print("\n[{}/{}, {:.0f} s] mpiexec -n {} tplab{}: {}\n", i + 1, jobs.size(),
               elapsed.count(), job.np, command, job.label);
    std::fflush(stdout);
    const JobEnd end = run_under_mpiexec(job.np, args, launch);
    note_ending(end, result);
    const JobResult written = folder.read(name);
    if (written.state == JobResult::State::accepted) {
      for (const auto& r : written.document.value(plan.key, nlohmann::json::array())) {
        result.runs.push_back(r);
      }
    }
    std::optional<JobFailure> failure = failure_of(job, end, written, launch.timeout_seconds);
    announce_failure(failure, end, job.np);
    if (failure) result.failures.push_back(std::move(*failure));
    ++result.finished;
    if (after_each_job) after_each_job(result);
  }
  return result;
}

nlohmann::json series_document(const std::string& key, nlohmann::json records,
                               const SeriesResult& series, bool pass) {
  nlohmann::json failures = nlohmann::json::array();
  for (const JobFailure& f : series.failures) failures.push_back(f.to_json());
  return {{key, std::move(records)},
          {"pass", pass && series.complete() && series.failures.empty()},
          {"failures", std::move(failures)},
          {"jobs", {{"planned", series.planned}, {"finished", series.finished}}}};
}

}  // namespace tplab::app
