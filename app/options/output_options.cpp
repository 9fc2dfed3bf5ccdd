#include "output_options.hpp"

#include <fmt/format.h>

#include "value_checks.hpp"

namespace tplab::app {

CLI::Option* add_trace_option(CLI::App& command, std::optional<std::string>& trace,
                              const std::string& what) {
  return command.add_option(
      "--trace", trace,
      fmt::format("write {} to this Chrome trace file, for Perfetto or chrome://tracing", what));
}

namespace {

/// Declares --out, storing into `target`.
template <class Target>
CLI::Option* declare_out(CLI::App& command, Target& target, const std::string& what) {
  return command.add_option(
      "--out", target,
      fmt::format("the folder to write {} to (made if missing; its parent must exist, and the "
                  "folder be your own)",
                  what));
}

}  // namespace

CLI::Option* add_out_option(CLI::App& command, std::string& folder, const std::string& what) {
  return declare_out(command, folder, what);
}

CLI::Option* add_out_option(CLI::App& command, std::optional<std::string>& folder,
                            const std::string& what) {
  return declare_out(command, folder, what);
}

CLI::Option* add_warmup_option(CLI::App& command, int& warmup, const std::string& what) {
  return command.add_option("--warmup", warmup, fmt::format("untimed {} first", what))
      ->check(count_check())
      ->capture_default_str();
}

CLI::Option* add_repeats_option(CLI::App& command, int& repeats, const std::string& what) {
  return command.add_option("--repeats", repeats, what)
      ->check(positive_count_check())
      ->capture_default_str();
}

}  // namespace tplab::app
