#include "trace_option.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "core/error.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

/// Letters and digits of `label`, every other run of characters one '-'.
std::string slug(const std::string& label) {
  std::string out;
  for (const char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::string job_trace_path(const std::string& trace, const std::string& label, int np,
                           std::size_t jobs, const std::optional<std::string>& json) {
  std::string path = trace;
  if (jobs > 1) {
    const std::filesystem::path given(trace);
    const std::string extension =
        given.has_extension() ? given.extension().string() : std::string(".json");
    path = (given.parent_path() /
            fmt::format("{}.{}-np{}{}", given.stem().string(), slug(label), np, extension))
               .string();
  }
  if (json && std::filesystem::weakly_canonical(path) == std::filesystem::weakly_canonical(*json)) {
    throw UsageError(
        fmt::format("--trace {} is also the --json: give the timeline a file of its own", path));
  }
  require_writable_file(path, "--trace");
  return path;
}

void plan_traces(LaunchPlan& plan, const std::optional<std::string>& trace,
                 const std::optional<std::string>& json) {
  if (!trace) return;
  for (JobPlan& job : plan.jobs) {
    const std::string path = job_trace_path(*trace, job.label, job.np, plan.jobs.size(), json);
    job.overrides.push_back({"--trace", {path}});
    fmt::print("trace of {} np={}: {}\n", job.label, job.np, path);
  }
}

}  // namespace tplab::app
