/// @file
/// What one rank of a pipeline stage sends to and receives from its neighbours in a step,
/// predicted: the counters' point-to-point calls on the "pp" groups must equal it.
#pragma once

#include <cstdint>
#include <string_view>

#include "gpt/gpt_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::model {

/// One rank's transfers between stages in one step.
struct PipelineTransfers {
  std::int64_t sends = 0;     ///< point-to-point sends
  std::int64_t receives = 0;  ///< receives
  /// Elements of each: the rank's shard of the block's input x for one micro-batch, as the
  /// scheme's placement of "x" cuts it (the activations at a stage boundary, and their gradient).
  std::int64_t elements_each = 0;
  /// Elements sent and received together, as the counters add up a rank's calls.
  std::int64_t elements() const { return (sends + receives) * elements_each; }
};

/// The transfers of rank `rank` (of one replica's stage: 0 .. world_size - 1) of stage `stage`
/// when scheme `scheme` (built with `options`, dp = pp = 1) runs `micro_batches` micro-batches of
/// the GPT `micro` (one micro-batch's shape) through the stages: each forward receives the
/// stage before's output (but on the first stage) and sends its own on (but on the last); each
/// backward the reverse. So M sends and M receives per neighbour, whatever the schedule.
PipelineTransfers pipeline_transfers(std::string_view scheme, const SchemeOptions& options,
                                     int world_size, const gpt::GptShape& micro, int rank,
                                     const gpt::GptStage& stage, int micro_batches);

}  // namespace tplab::model
