#include "option_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <limits>

namespace tplab::app {
namespace {

/// Whether `text` is a whole number from 1 to the largest int, written in decimal.
bool is_positive_int(const std::string& text) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc() && stop == end && value >= 1;
}

}  // namespace

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

CLI::Validator dropout_probability_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double p = -1;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, p);
        if (!text.empty() && error == std::errc() && stop == end && p >= 0 && p < 1) return {};
        return fmt::format(
            "'{}' is not a dropout probability: give a number in [0, 1) (0: no dropout; 1 would "
            "drop every element)",
            text);
      },
      "0<=P<1", "probability");
}

CLI::Validator timeout_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (is_positive_int(text)) return {};
        return fmt::format(
            "'{}' is not a timeout: give whole seconds from 1 to {} (the job is ended after that "
            "long)",
            text, std::numeric_limits<int>::max());
      },
      "SECONDS>=1", "timeout");
}

CLI::Validator replicas_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (is_positive_int(text)) return {};
        return fmt::format(
            "'{}' is not a number of data-parallel replicas: give a whole number D >= 1 (the "
            "world is then D x the scheme's ranks; 1 runs tensor parallelism alone)",
            text);
      },
      "D>=1", "replicas");
}

}  // namespace tplab::app
