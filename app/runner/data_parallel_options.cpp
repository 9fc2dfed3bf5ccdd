#include "data_parallel_options.hpp"

#include "option_checks.hpp"

namespace tplab::app {

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
