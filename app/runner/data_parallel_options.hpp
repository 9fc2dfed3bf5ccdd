/// @file
/// --dp and --dp-buckets: data parallelism around the scheme, as every command that runs or
/// models one takes it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "scheme/scheme.hpp"

namespace tplab::app {

/// The data-parallel options of one command.
struct DataParallelOptions {
  int dp = 1;                    ///< D, the replicas of the scheme
  std::string buckets = "flat";  ///< "flat" or "per-tensor"

  /// `options` with D and the bucketing set.
  SchemeOptions applied_to(SchemeOptions options) const;
};

/// Adds --dp and --dp-buckets to `command`. --dp takes a whole number of at least 1; anything
/// else is refused by the parser, before anything launches.
void add_data_parallel_options(CLI::App& command, DataParallelOptions& o);

}  // namespace tplab::app
