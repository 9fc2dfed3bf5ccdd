/// @file
/// The options of `tplab model`, shared by its projection, calibration and comparison.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheme/block_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {

/// What `tplab model` or one of its subcommands was asked for; each subcommand declares the
/// options it takes (add_*_options below), the others keep their defaults.
struct ModelOptions {
  std::vector<std::string> schemes;  ///< empty or {"all"}: every scheme
  std::optional<BlockShape> shape;   ///< --shape, or unset for the four options below
  /// --batch, --seq, --hidden and --heads: b, s, h and n.
  ///@{
  std::optional<std::int64_t> batch, seq, hidden, heads;  ///< set when given
  ///@}
  /// Device counts p to project to.
  std::vector<int> gpus = {8, 64, 512, 4096};
  std::string hardware;  ///< empty: dgx-h100, or local for `model compare`
  /// A file of more profiles, in the format of model/hardware.json.
  std::string hardware_file;
  /// Ranks per node, filled in order (unset: the profile's gpus_per_node).
  std::optional<int> ranks_per_node;
  /// --depth, --dp, --dp-buckets and --recompute (memory, FLOPs, what fits).
  SchemeOptions scheme;
  /// List every collective's share of the time.
  bool detail = false;
  /// Where to write the results as JSON (unset: nowhere).
  std::optional<std::string> json;
  std::string profile_out;  ///< where `model calibrate` writes the local profile
  /// `model compare`: the world sizes to run.
  std::vector<int> np = {2};
  /// `model compare`: timed steps per world size.
  int repeats = 5;
  /// Seconds before a launched job is ended.
  int timeout = 600;
  /// Launch jobs of more ranks than rank_limit().
  bool allow_many_ranks = false;

  /// The schemes asked for, each a known name; throws UsageError naming the known ones.
  std::vector<std::string> chosen_schemes() const;
  /// Whether one scheme or a list was named (rather than all).
  bool named_schemes() const;
  /// The shape from --shape or from --batch --seq --hidden --heads (all four), else
  /// `fallback` (for each replica: D times its batch); throws UsageError on a missing or
  /// conflicting value.
  BlockShape block_shape(const BlockShape& fallback) const;
};

/// Adds --hardware and --hardware-file, and with `nodes` --ranks-per-node: the cluster a model
/// runs on.
void add_hardware_options(CLI::App& command, ModelOptions& o, const std::string& hardware_help,
                          bool nodes);

/// Adds --batch, --seq, --hidden and --heads, the block's dimensions one by one (`model` takes
/// them beside --shape; `model plan` takes --seq, --hidden and --heads of its GPT).
void add_dimension_options(CLI::App& command, ModelOptions& o, bool with_batch);

/// Adds --gpus: the device counts (`what` says which: a projection's several, a plan's one).
CLI::Option* add_gpus_option(CLI::App& command, std::vector<int>& gpus, const std::string& what);

/// Adds --detail.
void add_detail_option(CLI::App& command, ModelOptions& o, const std::string& what);

/// Adds `model calibrate`: measures this machine under mpiexec at 2 ranks and writes the local
/// profile.
void add_model_calibrate_command(CLI::App& model, int& exit_code);

/// Adds `model compare`: the model's time for a run on this machine beside bench step's
/// measurement of it.
void add_model_compare_command(CLI::App& model, int& exit_code);

}  // namespace tplab::app
