/// @file
/// --dropout, --dropout-seed, --dropout-keying and --recompute: what every command that runs a
/// block takes for dropout and activation recomputation.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "scheme/scheme.hpp"

namespace tplab::app {

/// The dropout and recomputation options of one command.
struct BlockTrainingOptions {
  double dropout = 0;               ///< p
  std::uint64_t dropout_seed = 42;  ///< the masks' seed
  std::string keying = "global";    ///< "global", "rank-seed" or "local"
  std::string recompute = "none";   ///< "none", "selective" or "full"

  /// `options` with dropout and recomputation set.
  SchemeOptions applied_to(SchemeOptions options) const;
};

/// "none", "selective" or "full" as a Recompute; UsageError for anything else.
Recompute parse_recompute(const std::string& name);

/// Adds the options to `command`; the parser refuses a probability outside [0, 1) and unknown
/// names before anything launches.
void add_block_training_options(CLI::App& command, BlockTrainingOptions& o);

}  // namespace tplab::app
