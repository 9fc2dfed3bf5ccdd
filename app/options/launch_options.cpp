#include "launch_options.hpp"

#include <fmt/format.h>

#include "value_checks.hpp"

namespace tplab::app {
namespace {

constexpr std::string_view kNpHelp = "ranks of the job, every replica's together";

/// Declares --np, storing into `target` (one size or a list).
template <class Target>
CLI::Option* declare_np(CLI::App& command, Target& target, std::string_view what,
                        const std::string& defaults) {
  return command
      .add_option("--np", target, fmt::format("{}: {} (default: {})", what, kNpHelp, defaults))
      ->check(world_size_check());
}

}  // namespace

void add_launch_options(CLI::App& command, LaunchOptions& o, const std::string& what) {
  add_json_option(command, o.json, what);
  add_timeout_option(command, o.timeout, "a launched job is ended");
  command.add_option(
      "--hosts", o.hosts,
      "run the jobs on the hosts of this Open MPI hostfile ('node1 slots=8' a line); "
      "$TPLAB_MPIEXEC_ARGS passes further arguments to mpiexec (README, \"Running "
      "on several machines\")");
  add_allow_many_ranks_flag(command, o.allow_many_ranks);
}

CLI::Option* add_json_option(CLI::App& command, std::optional<std::string>& json,
                             const std::string& what) {
  return command.add_option(
      "--json", json,
      fmt::format("write {} to this file as JSON (a new or plain file in a folder of your own)",
                  what));
}

CLI::Option* add_timeout_option(CLI::App& command, int& seconds, const std::string& what) {
  return command.add_option("--timeout", seconds, fmt::format("seconds before {}", what))
      ->check(timeout_check())
      ->capture_default_str();
}

CLI::Option* add_allow_many_ranks_flag(CLI::App& command, bool& allow) {
  return command.add_flag("--allow-many-ranks", allow,
                          "start jobs of more ranks than 4 per core of this machine (at least 32)");
}

CLI::Option* add_np_option(CLI::App& command, std::vector<int>& sizes,
                           const std::string& defaults) {
  return declare_np(command, sizes, "world sizes", defaults)->delimiter(',');
}

CLI::Option* add_np_option(CLI::App& command, std::optional<int>& size,
                           const std::string& defaults) {
  return declare_np(command, size, "world size", defaults);
}

}  // namespace tplab::app
