#include "option_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <limits>

namespace tplab::app {

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t seed = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, seed);
        if (!text.empty() && error == std::errc() && stop == end) return {};
        return fmt::format("'{}' is not a seed: give a whole number from 0 to {}", text,
                           std::numeric_limits<std::uint64_t>::max());
      },
      "0..2^64-1", "seed");
}

CLI::Validator timeout_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int seconds = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, seconds);
        if (!text.empty() && error == std::errc() && stop == end && seconds >= 1) return {};
        return fmt::format(
            "'{}' is not a timeout: give whole seconds from 1 to {} (the job is ended after that "
            "long)",
            text, std::numeric_limits<int>::max());
      },
      "SECONDS>=1", "timeout");
}

}  // namespace tplab::app
