/// @file
/// The options every launching command has, declared once: where its result goes (--json),
/// how long a job may run (--timeout), the machines it runs on (--hosts), and whether it may
/// start more ranks than this machine sensibly runs (--allow-many-ranks).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace tplab::app {

/// The launcher's own options. Only --json reaches a job, as a file of the job's own.
struct LaunchOptions {
  std::optional<std::string> json;  ///< where the command's result goes (--json)
  int timeout = 300;                ///< seconds before a launched job is ended (--timeout)
  std::string hosts;                ///< an Open MPI hostfile, or empty for this machine
  bool allow_many_ranks = false;    ///< go past rank_limit() (--allow-many-ranks)
};

/// Adds --json (described by `json_help`), --timeout (default o.timeout), --hosts and
/// --allow-many-ranks to `command`.
void add_launch_options(CLI::App& command, LaunchOptions& o, const std::string& json_help);

}  // namespace tplab::app
