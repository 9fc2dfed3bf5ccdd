/// @file
/// What bench step and bench scaling can measure beside their steps, chosen with --compare: each
/// comparison is one entry of one table, which says how it is measured on the job's world, what
/// it adds to the run's JSON record, the line it prints under the run, its lines in the sweep's
/// summary and what it adds to a rank's memory. A new comparison is a new entry.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>
#include <vector>

#include "core/names.hpp"
#include "step_timer.hpp"
#include "world_run.hpp"

namespace tplab::app {

/// A measurement besides the steps.
enum class Comparison {
  none,       ///< nothing besides the steps
  overlap,    ///< steps with overlap off and on, alternating: the exposed communication of both
  recompute,  ///< steps with --recompute none, selective and full in turn
  reference,  ///< the single-device reference's step, on rank 0 of the first run of a scheme
};

/// The names --compare takes.
inline constexpr std::array<Named<Comparison>, 4> kComparisonNames = {
    {{"none", Comparison::none},
     {"overlap", Comparison::overlap},
     {"recompute", Comparison::recompute},
     {"reference", Comparison::reference}}};

/// One comparison: how it runs and what it shows.
struct ComparisonEntry {
  Comparison comparison;  ///< which comparison this is
  std::string_view help;  ///< for --compare's help
  /// Copies of the module it builds at once (step_bytes_per_rank's `modules`).
  int modules = 1;
  /// Measures it on `w` (collective) and returns the fields it adds to rank 0's record.
  nlohmann::json (*measure)(World& w, const bench::StepConfig& config);
  /// Prints what it measured, under the run's own line (rank 0, from the record).
  void (*print_run)(const nlohmann::json& record, const bench::StepConfig& config);
  /// Prints its lines in the sweep's summary, for the runs whose records hold it.
  void (*print_summary)(const nlohmann::json& runs);
};

/// Every comparison but none, in the order they run and print.
std::span<const ComparisonEntry> comparison_entries();

/// The entry of `comparison` (not none).
const ComparisonEntry& comparison_entry(Comparison comparison);

/// "overlap: ...; recompute: ...; reference: ...", for --compare's help.
std::string comparisons_help();

}  // namespace tplab::app
