/// @file
/// The mesh around the scheme: --dp and --dp-buckets, and the pipeline's --pp, --micro-batches
/// and --schedule, declared once here for every command that
/// runs or models replicas, stored straight into the library's SchemeOptions.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "scheme/block_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {

/// Adds --dp D (SchemeOptions::dp) and --dp-buckets (SchemeOptions::dp_buckets). --dp takes a
/// whole number of at least 1; anything else is refused by the parser, before anything launches.
void add_mesh_options(CLI::App& command, SchemeOptions& options);

/// Adds --dp D alone (`model plan`, which reduces no gradients of its own).
CLI::Option* add_dp_option(CLI::App& command, SchemeOptions& options);

/// Adds --pp S (SchemeOptions::pp), --micro-batches M (SchemeOptions::micro_batches) and
/// --schedule (SchemeOptions::schedule), for the commands that run or model a pipelined GPT.
void add_pipeline_options(CLI::App& command, SchemeOptions& options);

/// The global block of a run: `given` (--shape) as it is, or the command's default for one
/// replica, `replica_default`, with its batch D times as large, so that --dp D runs every
/// default world size of every scheme (D times its own) on the shape that scheme splits alone.
BlockShape global_shape(const std::optional<BlockShape>& given, BlockShape replica_default,
                        const SchemeOptions& options);

}  // namespace tplab::app
