/// @file
/// Where and how long a command's jobs run, and where its result goes: --np, --json, --timeout,
/// --hosts and --allow-many-ranks, each declared once here for every command that takes it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tplab::app {

/// The options every launching command has, which the launcher keeps to itself (where its
/// result goes, how long a job may run, the hosts, more ranks than cores): only --json reaches a
/// job, as a file of the job's own.
struct LaunchOptions {
  std::optional<std::string> json;  ///< where the command's result goes (--json)
  int timeout = 300;                ///< seconds before a launched job is ended (--timeout)
  std::string hosts;                ///< an Open MPI hostfile, or empty for this machine
  bool allow_many_ranks = false;    ///< go past rank_limit() (--allow-many-ranks)
};

/// Adds --json (`what` says what is written: "the runs (job by job, as they finish)"),
/// --timeout, --hosts and --allow-many-ranks to `command`.
void add_launch_options(CLI::App& command, LaunchOptions& o, const std::string& what);

/// Adds --json FILE: write `what` as JSON there.
CLI::Option* add_json_option(CLI::App& command, std::optional<std::string>& json,
                             const std::string& what);

/// Adds --timeout SECONDS (the default shown is `seconds`' value).
CLI::Option* add_timeout_option(CLI::App& command, int& seconds, const std::string& what);

/// Adds --allow-many-ranks.
CLI::Option* add_allow_many_ranks_flag(CLI::App& command, bool& allow);

/// Adds --np: the world sizes to run (`sizes`, a comma-separated list), each at least 1.
/// `defaults` says what runs when it is not given.
CLI::Option* add_np_option(CLI::App& command, std::vector<int>& sizes, const std::string& defaults);

/// Adds --np: the one world size to run (unset: `defaults`).
CLI::Option* add_np_option(CLI::App& command, std::optional<int>& size,
                           const std::string& defaults);

}  // namespace tplab::app
