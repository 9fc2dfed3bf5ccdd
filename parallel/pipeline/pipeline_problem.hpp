/// @file
/// The rules a pipelined GPT must meet before anything runs.
#pragma once

#include <string>

#include "gpt/gpt_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::pipeline {

/// Empty when `options`' pipeline (options.pp stages, options.micro_batches micro-batches) can
/// cut the GPT `shape` on `world_size` ranks; otherwise the rule broken and what would work:
/// at least one stage and one micro-batch, a world that the S stages split (world = D x S x the
/// scheme's ranks), L blocks that the S stages split, and a global batch of b sequences that
/// D x M micro-batches split. Pure: every rank reaches the same answer.
std::string pipeline_problem(const SchemeOptions& options, const gpt::GptShape& shape,
                             int world_size);

/// The GPT one micro-batch runs through one replica's stages: b / (D x M) of the sequences of
/// the global `shape`, the rest as it is.
gpt::GptShape micro_batch_shape(gpt::GptShape shape, const SchemeOptions& options);

}  // namespace tplab::pipeline
