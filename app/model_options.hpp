/// @file
/// The options of `tplab model`, shared by its projection, calibration and comparison.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheme/block_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {

/// What `tplab model` was asked for.
struct ModelOptions {
  std::vector<std::string> schemes;  ///< empty or {"all"}: every scheme
  std::string shape;                 ///< "b,s,h,heads", or empty for the four options below
  std::optional<std::int64_t> batch, seq, hidden, heads;  ///< set when given
  std::vector<int> gpus = {8, 64, 512, 4096};
  std::string hardware;  ///< empty: dgx-h100, or local with --compare
  std::string hardware_file;
  int depth = 0;
  bool detail = false;
  std::string json;
  bool calibrate = false;
  std::string profile_out;  ///< where --calibrate writes the local profile
  bool compare = false;
  std::vector<int> np = {2};
  int repeats = 5;
  int timeout = 600;

  /// The schemes asked for, each a known name; throws UsageError naming the known ones.
  std::vector<std::string> chosen_schemes() const;
  /// Whether one scheme or a list was named (rather than all).
  bool named_schemes() const;
  /// The shape from --shape or from --batch --seq --hidden --heads (all four), else
  /// `fallback`; throws UsageError on a missing, conflicting or non-positive value.
  BlockShape block_shape(std::string_view fallback) const;
  SchemeOptions scheme_options() const { return {depth}; }
};

/// `tplab model --calibrate`: measures this machine under mpiexec at 2 ranks and writes the
/// local profile. Returns the exit code.
int run_calibration(const ModelOptions& o);

/// `tplab model --compare`: the model's time for a run on this machine beside bench step's
/// measurement of it. Returns the exit code.
int run_comparison(const ModelOptions& o);

}  // namespace tplab::app
