#include "job_arguments.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tplab::app {
namespace {

/// `--name=value` for each value: one word, which a flag needs and which keeps a value that
/// starts with '-' from being read as an option. An empty value goes as two words, `--name ""`:
/// CLI11 reads `--name=` as no value and would take the next word as the option's.
void append(std::vector<std::string>& args, const std::string& name,
            const std::vector<std::string>& values) {
  for (const std::string& v : values) {
    if (v.empty()) {
      args.insert(args.end(), {name, v});
    } else {
      args.push_back(name + "=" + v);
    }
  }
}

void require_option(const CLI::App& command, const std::string& name) {
  for (const CLI::Option* o : command.get_options()) {
    if (o->check_lname(name.substr(2))) return;
  }
  throw InternalError(fmt::format("'{}' has no option {} to set for its jobs",
                                  fmt::join(command_path(command), " "), name));
}

}  // namespace

std::vector<std::string> command_path(const CLI::App& command) {
  std::vector<std::string> path;
  for (const CLI::App* a = &command; a->get_parent() != nullptr; a = a->get_parent()) {
    path.insert(path.begin(), a->get_name());
  }
  return path;
}

std::vector<std::string> job_arguments(const CLI::App& command,
                                       const std::vector<ArgumentOverride>& overrides) {
  const auto set_apart = [&](const CLI::Option& o) {
    const auto named = [&](const std::string& n) { return o.check_lname(n.substr(2)); };
    return std::ranges::any_of(kLauncherOnlyOptions, named) ||
           std::ranges::any_of(overrides, [&](const auto& v) { return named(v.option); });
  };
  std::vector<std::string> args = command_path(command);
  for (const CLI::Option* o : command.get_options()) {
    if (o->count() == 0 || set_apart(*o)) continue;
    if (o->get_positional() || o->get_lnames().empty()) {
      throw InternalError(fmt::format("the jobs of '{}' cannot be given its positional '{}'",
                                      fmt::join(command_path(command), " "), o->get_name()));
    }
    append(args, "--" + o->get_lnames().front(), o->results());
  }
  for (const ArgumentOverride& v : overrides) {
    require_option(command, v.option);  // a misspelt override is a bug, not a silent no-op
    append(args, v.option, v.values);
  }
  return args;
}

}  // namespace tplab::app
