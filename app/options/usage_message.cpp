#include "usage_message.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

namespace tplab::app {
namespace {

/// The deepest command the parser entered, and its path: "model plan".
std::pair<const CLI::App*, std::string> entered_command(const CLI::App* program) {
  std::vector<std::string> path;
  const CLI::App* a = program;
  while (!a->get_subcommands().empty()) {
    a = a->get_subcommands().front();
    path.push_back(a->get_name());
  }
  return {a, fmt::format("{}", fmt::join(path, " "))};
}

/// The subcommands of `command` that take every one of `options`, by name.
std::vector<std::string> subcommands_taking(const CLI::App* command,
                                            const std::vector<std::string>& options) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command->get_subcommands({})) {
    const bool takes_all = std::all_of(options.begin(), options.end(), [&](const std::string& o) {
      return sub->get_option_no_throw(o) != nullptr;
    });
    if (takes_all) names.push_back(sub->get_name());
  }
  return names;
}

}  // namespace

std::string usage_message(const CLI::App* program, const CLI::Error& e) {
  const std::string text = e.what();
  constexpr std::string_view kExtras = "not expected:";
  const std::size_t at = text.find(kExtras);
  // (CLI11 2.1 gives a subcommand's ExtrasError the subcommand's name, not its own)
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr || at == std::string::npos) {
    return CLI::FailureMessage::simple(program, e);
  }
  std::vector<std::string> options, words;
  std::istringstream extras(text.substr(at + kExtras.size()));
  for (std::string word; extras >> word;)
    (word.rfind("--", 0) == 0 ? options : words).push_back(word);
  const auto [entered, command] = entered_command(program);
  const std::string what = options.empty()
                               ? fmt::format("no argument '{}'", fmt::join(words, "' or '"))
                               : fmt::format("no option {}", fmt::join(options, " or "));
  const std::string name = command.empty() ? "tplab" : command;
  // an option of a subcommand given to the command above it: name the subcommand
  if (const std::vector<std::string> subs = subcommands_taking(entered, options);
      !options.empty() && !subs.empty()) {
    const std::string sub = command.empty() ? subs.front() : command + " " + subs.front();
    return fmt::format(
        "tplab: error: {} takes {}; {} does (./tplab {} --help lists what it takes)\n", name, what,
        sub, sub);
  }
  return fmt::format("tplab: error: {} takes {} (./tplab {} --help lists what it takes)\n", name,
                     what, command);
}

}  // namespace tplab::app
