#include "launch_options.hpp"

#include "hostfile.hpp"
#include "launch_preflight.hpp"
#include "option_checks.hpp"

namespace tplab::app {

void add_launch_options(CLI::App& command, LaunchOptions& o, const std::string& json_help) {
  command.add_option("--json", o.json, json_help);
  command.add_option("--timeout", o.timeout, "seconds before a launched job is ended")
      ->check(timeout_check())
      ->capture_default_str();
  add_hosts_option(command, o.hosts);
  add_allow_many_ranks_flag(command, o.allow_many_ranks);
}

}  // namespace tplab::app
