#include "mesh_options.hpp"

#include "choice.hpp"
#include "value_checks.hpp"

namespace tplab::app {

CLI::Option* add_dp_option(CLI::App& command, SchemeOptions& options) {
  return command
      .add_option(
          "--dp", options.dp,
          "D data-parallel replicas of the scheme: the world is D x its ranks, the ranks of "
          "a replica consecutive (world rank = replica x P + scheme rank); replica r takes "
          "sequences [r b/D, (r+1) b/D) and the gradients are reduced over the DP group. "
          "The default shapes and world sizes are one replica's: the batch and the ranks "
          "grow D times")
      ->check(replicas_check())
      ->capture_default_str();
}

void add_mesh_options(CLI::App& command, SchemeOptions& options) {
  add_dp_option(command, options);
  add_choice(command, "--dp-buckets", options.dp_buckets, kGradientBucketNames,
             "with D > 1: flat (every gradient shard in one buffer, one all-reduce) or "
             "per-tensor (one all-reduce per parameter)");
}

void add_pipeline_options(CLI::App& command, SchemeOptions& options) {
  command
      .add_option("--pp", options.pp,
                  "S pipeline stages: stage s holds blocks [s L/S, (s+1) L/S), the first also the "
                  "embedding, the last the final LayerNorm, the head and the loss; activations "
                  "and their gradients pass between neighbours by MPI point-to-point. The world "
                  "is D x S x the scheme's ranks (world rank = (replica x S + stage) x P + "
                  "scheme rank)")
      ->check(positive_count_check())
      ->capture_default_str();
  command
      .add_option("--micro-batches", options.micro_batches,
                  "M micro-batches each replica's b/D sequences are cut into, their gradients "
                  "summed in micro-batch order and divided by M (with --pp 1: gradient "
                  "accumulation, one micro-batch after another)")
      ->check(positive_count_check())
      ->capture_default_str();
  add_choice(command, "--schedule", options.schedule, kPipelineScheduleNames,
             "with --pp S > 1: gpipe (every forward, then every backward: M micro-batches kept) "
             "or 1f1b (S - s - 1 forwards on stage s, then one forward and one backward in turn: "
             "min(S - s, M) kept)");
}

BlockShape global_shape(const std::optional<BlockShape>& given, BlockShape replica_default,
                        const SchemeOptions& options) {
  if (given) return *given;
  replica_default.b *= options.dp;
  return replica_default;
}

}  // namespace tplab::app
