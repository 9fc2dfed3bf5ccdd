#include "mesh_options.hpp"

#include "choice.hpp"
#include "value_checks.hpp"

namespace tplab::app {

void add_mesh_options(CLI::App& command, SchemeOptions& options) {
  command
      .add_option(
          "--dp", options.dp,
          "D data-parallel replicas of the scheme: the world is D x its ranks, the ranks of "
          "a replica consecutive (world rank = replica x P + scheme rank); replica r takes "
          "sequences [r b/D, (r+1) b/D) and the gradients are reduced over the DP group. "
          "The default shapes and world sizes are one replica's: the batch and the ranks "
          "grow D times")
      ->check(replicas_check())
      ->capture_default_str();
  add_choice(command, "--dp-buckets", options.dp_buckets, kGradientBucketNames,
             "with D > 1: flat (every gradient shard in one buffer, one all-reduce) or "
             "per-tensor (one all-reduce per parameter)");
}

BlockShape global_shape(const std::optional<BlockShape>& given, BlockShape replica_default,
                        const SchemeOptions& options) {
  if (given) return *given;
  replica_default.b *= options.dp;
  return replica_default;
}

}  // namespace tplab::app
