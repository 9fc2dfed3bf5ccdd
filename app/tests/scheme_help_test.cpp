// Every command that takes --scheme names every registered scheme in its --help: the help is
// read from the tplab program itself (TPLAB_PROGRAM), the names from the registry.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "registry/scheme_registry.hpp"

namespace tplab {
namespace {

/// What `tplab <command> --help` prints.
std::string help_of(const std::string& command) {
  const std::string line = std::string(TPLAB_PROGRAM) + " " + command + " --help 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(line.c_str(), "r"), pclose);
  if (!pipe) return {};
  std::string text;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) text += buffer.data();
  return text;
}

/// The description of the --scheme option in a help text: its line without the option's name
/// and its type and default ("TEXT=1d", which would name a scheme of its own), and the lines
/// the description wraps onto, up to the next option.
std::string scheme_option_help(const std::string& help) {
  std::istringstream lines(help);
  std::string line, description;
  bool inside = false;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '-') {
      inside = line.compare(first, 9, "--scheme ") == 0;
      if (!inside) continue;
      std::istringstream columns(line.substr(first));
      std::string name, type;
      columns >> name >> type;
      std::getline(columns, line);
    }
    if (inside) description += line + "\n";
  }
  return description;
}

/// The words of `text` between spaces, commas, colons, semicolons and brackets: "1d-sp" and
/// "2.5d" stay whole, so "1d" is not found inside "1d-sp".
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> found;
  std::string word;
  for (const char c : text + " ") {
    if (std::string_view(" \n,;:()[]").find(c) != std::string_view::npos) {
      if (!word.empty()) found.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return found;
}

class SchemeHelp : public testing::TestWithParam<std::string> {};

TEST_P(SchemeHelp, NamesEveryRegisteredScheme) {
  const std::string description = scheme_option_help(help_of(GetParam()));
  ASSERT_FALSE(description.empty()) << "tplab " << GetParam() << " --help has no --scheme option";
  const std::vector<std::string> said = words(description);
  for (const SchemeEntry& scheme : scheme_registry()) {
    EXPECT_NE(std::find(said.begin(), said.end(), scheme.name), said.end())
        << "tplab " << GetParam() << " --help leaves out " << scheme.name << ":\n"
        << description;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryCommandWithScheme, SchemeHelp,
                         testing::Values("verify", "train", "bench scaling", "bench step",
                                         "placements", "model"),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           std::replace(name.begin(), name.end(), ' ', '_');
                           return name;
                         });

}  // namespace
}  // namespace tplab
