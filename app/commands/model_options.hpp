/// @file
/// The options of `tplab model`, shared by its projection, calibration and comparison.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data_parallel_options.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {

/// What `tplab model` was asked for.
struct ModelOptions {
  std::vector<std::string> schemes;  ///< empty or {"all"}: every scheme
  std::string shape;                 ///< "b,s,h,heads", or empty for the four options below
  /// --batch, --seq, --hidden and --heads: b, s, h and n.
  ///@{
  std::optional<std::int64_t> batch, seq, hidden, heads;  ///< set when given
  ///@}
  /// Device counts p to project to.
  std::vector<int> gpus = {8, 64, 512, 4096};
  std::string hardware;  ///< empty: dgx-h100, or local with --compare
  /// A file of more profiles, in the format of model/hardware.json.
  std::string hardware_file;
  /// Ranks per node, filled in order (unset: the profile's gpus_per_node).
  std::optional<int> ranks_per_node;
  /// 2.5D depth d (0: d = p/q^2 with the largest q).
  int depth = 0;
  /// --dp D replicas around each scheme (the device counts count every rank) and --dp-buckets.
  DataParallelOptions data_parallel;
  /// What the blocks recompute: "none", "selective" or "full" (memory, FLOPs, what fits).
  std::string recompute = "none";
  /// List every collective's share of the time.
  bool detail = false;
  /// Where to write the results as JSON (unset: nowhere).
  std::optional<std::string> json;
  /// Measure this machine and write the local profile.
  bool calibrate = false;
  std::string profile_out;  ///< where --calibrate writes the local profile
  /// Run bench step here and print the model's time beside it.
  bool compare = false;
  /// With --compare: the world sizes to run.
  std::vector<int> np = {2};
  /// With --compare: timed steps per world size.
  int repeats = 5;
  /// Seconds before a launched job is ended.
  int timeout = 600;
  /// Launch jobs of more ranks than rank_limit() (--compare).
  bool allow_many_ranks = false;

  /// The schemes asked for, each a known name; throws UsageError naming the known ones.
  std::vector<std::string> chosen_schemes() const;
  /// Whether one scheme or a list was named (rather than all).
  bool named_schemes() const;
  /// The shape from --shape or from --batch --seq --hidden --heads (all four), else
  /// `fallback`; throws UsageError on a missing, conflicting or non-positive value.
  BlockShape block_shape(std::string_view fallback) const;
  /// The options the schemes take from these: the 2.5D depth, the replicas around them and
  /// the recomputation.
  SchemeOptions scheme_options() const;
};

/// `tplab model --calibrate`: measures this machine under mpiexec at 2 ranks and writes the
/// local profile. Returns the exit code.
int run_calibration(const CLI::App& command, const ModelOptions& o);

/// `tplab model --compare`: the model's time for a run on this machine beside bench step's
/// measurement of it. Returns the exit code.
int run_comparison(const CLI::App& command, const ModelOptions& o);

}  // namespace tplab::app
