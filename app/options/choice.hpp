/// @file
/// Options that take a name from a closed set, an enum's table of names (parallel/core/names.hpp),
/// parsed when the command line is read into the enum's value. What a command takes, its help
/// and its JSON then all come from the one table written beside the enum.
///
/// Why not CLI11's CheckedTransformer: CLI11 2.1 replaces the name in the option's results by
/// the enum's integer, and the runner reads those results back to give each job the caller's
/// own arguments (runner/job_arguments.hpp), so a job would run `--dtype=0`; its help would
/// show "{bf16->2,f32->1,f64->0} OR {2,1,0}", and it would accept "1" for f32.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/names.hpp"

namespace tplab::app {

/// A check that accepts the names of `names` only, refusing anything else with what would work.
template <class Table>
CLI::Validator one_of(const Table& names) {
  const std::string list = names_text(names);
  return CLI::Validator(
      [&names, list](std::string& text) -> std::string {
        if (value_in(names, text)) return {};
        return fmt::format("'{}' is not one of {}", text, list);
      },
      "", "one of");
}

/// "{f64,f32,bf16}", the type name help shows for an option taking one of `names`.
template <class Table>
std::string choice_type_name(const Table& names) {
  std::string text;
  for (const auto& n : names) text += fmt::format("{}{}", text.empty() ? "{" : ",", n.name);
  return text + "}";
}

/// Adds `option` to `command`: one name of `names`, stored in `target` as its value when the
/// command line is parsed. The default help shows is target's value before parsing.
template <class Table, class E>
CLI::Option* add_choice(CLI::App& command, const std::string& option, E& target, const Table& names,
                        const std::string& help) {
  return command
      .add_option_function<std::string>(
          option, [&target, &names](const std::string& name) { target = *value_in(names, name); },
          help)
      ->check(one_of(names))
      ->type_name(choice_type_name(names))
      ->default_str(std::string(name_in(names, target)));
}

/// The same for a comma-separated list of names, stored in order in `targets` (which then holds
/// those alone, not its defaults as well).
template <class Table, class E>
CLI::Option* add_choices(CLI::App& command, const std::string& option, std::vector<E>& targets,
                         const Table& names, const std::string& help) {
  std::string defaults;
  for (const E& value : targets) {
    defaults += fmt::format("{}{}", defaults.empty() ? "" : ",", name_in(names, value));
  }
  return command
      .add_option_function<std::vector<std::string>>(
          option,
          [&targets, &names](const std::vector<std::string>& given) {
            targets.clear();
            for (const std::string& name : given) targets.push_back(*value_in(names, name));
          },
          help)
      ->delimiter(',')
      ->check(one_of(names))
      ->type_name(choice_type_name(names))
      ->default_str(defaults);
}

/// add_choice or add_choices, as `target` holds one value or a list.
template <class Table, class Target>
CLI::Option* add_named_option(CLI::App& command, const std::string& option, Target& target,
                              const Table& names, const std::string& help) {
  if constexpr (requires { target.push_back(target.front()); }) {
    return add_choices(command, option, target, names, help);
  } else {
    return add_choice(command, option, target, names, help);
  }
}

}  // namespace tplab::app
