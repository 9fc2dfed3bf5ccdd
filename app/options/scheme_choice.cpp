#include "scheme_choice.hpp"

#include <fmt/format.h>

#include "choice.hpp"
#include "registry/scheme_registry.hpp"
#include "value_checks.hpp"

namespace tplab::app {
namespace {

/// A check that accepts a scheme's name, and "all" where `all` says so.
CLI::Validator scheme_check(bool all) {
  return CLI::Validator(
      [all](std::string& text) -> std::string {
        if (all && text == "all") return {};
        for (const std::string& name : scheme_names()) {
          if (name == text) return {};
        }
        return fmt::format("'{}' is not a scheme; the schemes are {}{}", text, scheme_help_list(),
                           all ? " (or all)" : "");
      },
      "SCHEME", "scheme");
}

/// Declares --scheme, storing one name or a list into `target`.
template <class Target>
CLI::Option* declare_scheme(CLI::App& command, Target& target, const std::string& help) {
  command.footer(scheme_help_table());
  return command.add_option("--scheme", target, help);
}

}  // namespace

std::vector<bool> overlap_settings(Overlap overlap) {
  if (overlap == Overlap::both) return {false, true};
  return {overlap == Overlap::on};
}

CLI::Option* add_scheme_option(CLI::App& command, std::string& scheme) {
  return declare_scheme(command, scheme, "the scheme: " + scheme_help_list())
      ->check(scheme_check(false))
      ->capture_default_str();
}

CLI::Option* add_scheme_option(CLI::App& command, std::vector<std::string>& schemes) {
  return declare_scheme(command, schemes,
                        "schemes: " + scheme_help_list() + " or all (default: all)")
      ->delimiter(',')
      ->check(scheme_check(true));
}

void add_scheme_build_options(CLI::App& command, SchemeOptions& options) {
  add_depth_option(command, options);
  command.add_flag("--regather", options.regather,
                   "3D: keep only the local shards from forward and gather X~ and W~ again in "
                   "backward (less memory, more communication)");
}

CLI::Option* add_depth_option(CLI::App& command, SchemeOptions& options) {
  return command
      .add_option("--depth", options.depth,
                  "2.5D's depth d (default: d = p/q^2 with the largest q that fits)")
      ->check(positive_count_check());
}

CLI::Option* add_overlap_option(CLI::App& command, Overlap& overlap, const std::string& help_tail) {
  return add_choice(command, "--overlap", overlap, kOverlapNames,
                    "on: start collectives early and compute while they run (the same "
                    "collectives, the same results within tolerance); " +
                        help_tail);
}

}  // namespace tplab::app
