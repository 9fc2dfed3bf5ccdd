/// @file
/// pipeline_problem: stages, micro-batches, world and batch, each with its message.
#include "pipeline/pipeline_problem.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace tplab::pipeline {

std::string pipeline_problem(const SchemeOptions& options, const gpt::GptShape& shape,
                             int world_size) {
  const int s = options.pp, m = options.micro_batches, d = options.dp;
  if (s < 1) return fmt::format("--pp {}: a pipeline has at least 1 stage", s);
  if (m < 1) return fmt::format("--micro-batches {}: a step runs at least 1 micro-batch", m);
  if (world_size % s != 0) {
    return fmt::format(
        "--pp {} runs {} stages side by side, each on its own ranks (world = D x S x the "
        "scheme's ranks), and the world of {} ranks does not split into {}; give --np a "
        "multiple of {}",
        s, s, world_size, s, s * d);
  }
  if (shape.layers % s != 0) {
    return fmt::format(
        "--pp {} gives each stage L/S of the GPT's blocks, and L = {} does not split into {}; "
        "use --layers a multiple of {} or --pp a divisor of {}",
        s, shape.layers, s, s, shape.layers);
  }
  if (shape.block.b % (static_cast<std::int64_t>(d) * m) != 0) {
    return fmt::format(
        "--dp {} x --micro-batches {} cuts the global batch into {} micro-batches of b/(D x M) "
        "sequences, and b = {} does not split into {}; use a batch that {} divides",
        d, m, d * m, shape.block.b, d * m, d * m);
  }
  return {};
}

gpt::GptShape micro_batch_shape(gpt::GptShape shape, const SchemeOptions& options) {
  const std::int64_t parts = static_cast<std::int64_t>(options.dp) * options.micro_batches;
  check(parts >= 1 && shape.block.b % parts == 0, "the batch splits into the micro-batches");
  shape.block.b /= parts;
  return shape;
}

}  // namespace tplab::pipeline
