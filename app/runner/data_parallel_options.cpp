#include "data_parallel_options.hpp"

#include <fmt/format.h>

#include <charconv>

namespace tplab::app {
namespace {

/// D: a whole number, at least 1.
CLI::Validator replicas_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int d = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, d);
        if (!text.empty() && error == std::errc() && stop == end && d >= 1) return {};
        return fmt::format(
            "'{}' is not a number of data-parallel replicas: give a whole number D >= 1 (the "
            "world is then D x the scheme's ranks; 1 runs tensor parallelism alone)",
            text);
      },
      "D>=1", "replicas");
}

}  // namespace

SchemeOptions DataParallelOptions::applied_to(SchemeOptions options) const {
  options.dp = dp;
  options.dp_buckets =
      buckets == "per-tensor" ? GradientBuckets::per_tensor : GradientBuckets::flat;
  return options;
}

void add_data_parallel_options(CLI::App& command, DataParallelOptions& o) {
  command
      .add_option(
          "--dp", o.dp,
          "D data-parallel replicas of the scheme: the world is D x its ranks, the ranks of "
          "a replica consecutive (world rank = replica x P + scheme rank); replica r takes "
          "sequences [r b/D, (r+1) b/D) and the gradients are reduced over the DP group")
      ->check(replicas_check())
      ->capture_default_str();
  command
      .add_option("--dp-buckets", o.buckets,
                  "with --dp: flat (every gradient shard in one buffer, one all-reduce) or "
                  "per-tensor (one all-reduce per parameter)")
      ->check(CLI::IsMember({"flat", "per-tensor"}))
      ->capture_default_str();
}

}  // namespace tplab::app
