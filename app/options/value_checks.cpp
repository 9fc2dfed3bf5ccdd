#include "value_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>

namespace tplab::app {
namespace {

/// `text` as a Number, when all of it is one written in decimal.
template <typename Number>
std::optional<Number> number_of(const std::string& text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

/// Whether `text` is a whole number from `least` to the largest int, written in decimal.
bool is_int_from(const std::string& text, int least) {
  const auto value = number_of<int>(text);
  return value && *value >= least;
}

}  // namespace

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (number_of<std::uint64_t>(text)) return {};
        return fmt::format("'{}' is not a seed: give a whole number from 0 to {}", text,
                           std::numeric_limits<std::uint64_t>::max());
      },
      "0..2^64-1", "seed");
}

CLI::Validator dropout_probability_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto p = number_of<double>(text);
        if (p && *p >= 0 && *p < 1) return {};
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
        if (is_int_from(text, 1)) return {};
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
        if (is_int_from(text, 1)) return {};
        return fmt::format(
            "'{}' is not a number of data-parallel replicas: give a whole number D >= 1 (the "
            "world is then D x the scheme's ranks; 1 runs tensor parallelism alone)",
            text);
      },
      "D>=1", "replicas");
}

CLI::Validator positive_count_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto value = number_of<std::int64_t>(text);
        if (value && *value >= 1) return {};
        return fmt::format("'{}' is not a count: give a whole number of at least 1", text);
      },
      "N>=1", "count");
}

CLI::Validator world_size_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (is_int_from(text, 1)) return {};
        return fmt::format("'{}' is not a world size: a run needs at least one rank", text);
      },
      "NP>=1", "ranks");
}

CLI::Validator count_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (is_int_from(text, 0)) return {};
        return fmt::format("'{}' is not a count: give a whole number of at least 0", text);
      },
      "N>=0", "count");
}

CLI::Validator positive_number_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto value = number_of<double>(text);
        if (value && *value > 0) return {};
        return fmt::format("'{}' is not a positive number", text);
      },
      "X>0", "positive");
}

CLI::Validator share_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto value = number_of<double>(text);
        if (value && *value > 0 && *value <= 1) return {};
        return fmt::format(
            "'{}' is not a share of the peak: give a number above 0 and at most 1, "
            "such as 0.5",
            text);
      },
      "0<X<=1", "share");
}

}  // namespace tplab::app
