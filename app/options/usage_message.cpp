#include "usage_message.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>
#include <vector>

namespace tplab::app {
namespace {

/// "model plan": the deepest command the parser entered.
std::string command_path(const CLI::App* program) {
  std::vector<std::string> path;
  for (const CLI::App* a = program; !a->get_subcommands().empty();) {
    a = a->get_subcommands().front();
    path.push_back(a->get_name());
  }
  return fmt::format("{}", fmt::join(path, " "));
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
  const std::string command = command_path(program);
  const std::string what = options.empty()
                               ? fmt::format("no argument '{}'", fmt::join(words, "' or '"))
                               : fmt::format("no option {}", fmt::join(options, " or "));
  return fmt::format("tplab: error: {} takes {} (./tplab {} --help lists what it takes)\n",
                     command.empty() ? "tplab" : command, what, command);
}

}  // namespace tplab::app
