#include "compiler_messages.hpp"

#include <array>
#include <sstream>
#include <string_view>
#include <vector>

namespace tplab::app {
namespace {

/// A line in which the compiler or the linker says what is wrong and where: GCC's and Clang's
/// "file:line:col: error: ...", "note: ...", the context before them ("file: In function
/// 'f':", "In file included from ...", "required from here") and the linker's "undefined
/// reference to ...". A command line the build tool echoes holds none of these words.
bool is_diagnostic(std::string_view line) {
  static constexpr std::array<std::string_view, 12> kMarks = {"error:",
                                                              "warning:",
                                                              "note:",
                                                              "In function",
                                                              "in function",
                                                              "In member function",
                                                              "In constructor",
                                                              "In instantiation of",
                                                              "required from",
                                                              "At global scope",
                                                              "In file included from",
                                                              "undefined reference"};
  for (std::string_view mark : kMarks) {
    if (line.find(mark) != std::string_view::npos) return true;
  }
  return false;
}

/// A line of the source excerpt a diagnostic shows under itself: GCC's "   12 |   x = 1;" and
/// its caret "      |   ^", Clang's indented code and caret, and GCC's "   from file:3," lines
/// of an include chain. A build tool's command line never starts with a blank.
bool is_excerpt(std::string_view line) {
  return !line.empty() && (line.front() == ' ' || line.front() == '\t');
}

/// The build tool's own progress lines: "[3/7] Building ...", "ninja: build stopped", "FAILED:".
bool is_progress(std::string_view line) {
  return line.starts_with("[") || line.starts_with("ninja: ") || line.starts_with("FAILED: ");
}

/// The body of a "CMake Error at FILE:LINE (message):" block, which is how a script's
/// message(FATAL_ERROR) reaches the build's output (the link fence's refusal among them):
/// CMake indents each line by two and wraps each paragraph near 80 columns, a line indented
/// further being kept as it is. The paragraphs are put together again, one line each.
void add_cmake_body(std::vector<std::string>& kept, const std::vector<std::string>& body) {
  bool continues = false;  // the last line kept is a paragraph that may go on
  for (const std::string& line : body) {
    if (line.find_first_not_of(' ') == std::string::npos) {
      continues = false;
      continue;
    }
    const bool paragraph = line.starts_with("  ") && line[2] != ' ';
    const std::string text = line.starts_with("  ") ? line.substr(2) : line;
    if (paragraph && continues) {
      kept.back() += " " + text;
    } else {
      kept.push_back(text);
    }
    continues = paragraph;
  }
}

/// `line` with the file it starts with (after `prefix`, when it has it) named relative to
/// `source_folder`, where it lies there.
std::string in_source_folder(const std::string& line, const std::filesystem::path& build_folder,
                             const std::filesystem::path& source_folder) {
  static constexpr std::string_view kIncluded = "In file included from ";
  const std::size_t start = line.starts_with(kIncluded) ? kIncluded.size() : 0;
  const std::size_t colon = line.find(':', start);
  if (colon == std::string::npos || colon == start) return line;
  const std::filesystem::path file =
      (build_folder / line.substr(start, colon - start)).lexically_normal();
  const std::filesystem::path inside = file.lexically_relative(source_folder);
  // "collect2: error", "exercise.cpp:(.text+0x1c): undefined ...": no file of the checkout
  if (inside.empty() || inside.begin()->string() == ".." || !std::filesystem::exists(file)) {
    return line;
  }
  return line.substr(0, start) + inside.string() + line.substr(colon);
}

}  // namespace

std::string compiler_messages(const std::string& build_output,
                              const std::filesystem::path& build_folder,
                              const std::filesystem::path& source_folder) {
  std::vector<std::string> kept, unfiltered;
  std::vector<std::string> cmake_body;
  bool in_cmake_error = false, after_diagnostic = false;
  std::istringstream lines(build_output);
  for (std::string line; std::getline(lines, line);) {
    if (!is_progress(line)) unfiltered.push_back(line);
    if (in_cmake_error) {
      if (line.empty() || line.front() == ' ') {
        cmake_body.push_back(line);
        continue;
      }
      add_cmake_body(kept, cmake_body);
      cmake_body.clear();
      in_cmake_error = false;
    }
    if (line.starts_with("CMake Error")) {
      in_cmake_error = true;
      after_diagnostic = false;
    } else if (is_diagnostic(line)) {
      kept.push_back(in_source_folder(line, build_folder, source_folder));
      after_diagnostic = true;
    } else if (after_diagnostic && is_excerpt(line)) {
      kept.push_back(line);
    } else {
      after_diagnostic = false;
    }
  }
  add_cmake_body(kept, cmake_body);
  std::string messages;
  for (const std::string& line : kept.empty() ? unfiltered : kept) messages += line + "\n";
  return messages;
}

}  // namespace tplab::app
