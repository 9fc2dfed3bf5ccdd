/// @file
/// The arguments a launched job gets: the caller's own, read back from what CLI11 parsed, with
/// the few that differ per job set apart. No command mirrors its options by hand, so an option
/// added to a command reaches its jobs without another line.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tplab::app {

/// One option whose value a job sets apart from the caller's: `values` replace whatever the
/// caller gave (a flag takes "true" or "false"); with no values the option is left out.
struct ArgumentOverride {
  std::string option;               ///< its long name, "--scheme"
  std::vector<std::string> values;  ///< the job's values, or none to leave it out
};

/// The options of a launching command that the launcher keeps to itself: where and how long
/// the jobs run. A job never sees them (a hostfile's path need not exist on the job's hosts).
inline const std::vector<std::string> kLauncherOnlyOptions = {"--timeout", "--hosts",
                                                              "--allow-many-ranks"};

/// The words that name `command` from the program down: {"bench", "step"}.
std::vector<std::string> command_path(const CLI::App& command);

/// `command`'s path, then every option the caller gave it (as parsed, in declaration order;
/// each as `--option=value`, a flag's value "true" or "false"), except kLauncherOnlyOptions and the
/// overridden ones, then each override. Parsing the result as `command` gives every option the
/// caller's value or the override's. Throws InternalError for a positional argument, which the jobs
/// cannot be given.
std::vector<std::string> job_arguments(const CLI::App& command,
                                       const std::vector<ArgumentOverride>& overrides);

}  // namespace tplab::app
