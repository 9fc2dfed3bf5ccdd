/// @file
/// The properties of a run that every rank checks on its own beside the values of its tensors:
/// each is one entry of one table, and a run's verdict on them is one list, so a new property
/// is a new entry, its check where the run measures it, and its line in the report.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/names.hpp"

namespace tplab::verify {

/// A property of a run, checked on every rank.
enum class Property {
  comm,       ///< the rank's collectives, call by call, are the cost model's
  kept,       ///< what it keeps from forward for backward is the cost model's bytes
  recompute,  ///< recomputing gave, bit for bit, the outputs of the run that keeps everything
};

/// The names of the properties, as the JSON records them ("comm_match",
/// "comm_mismatch_ranks", ...).
inline constexpr std::array<Named<Property>, 3> kPropertyNames = {
    {{"comm", Property::comm}, {"kept", Property::kept}, {"recompute", Property::recompute}}};

/// How many properties there are.
inline constexpr std::size_t kProperties = kPropertyNames.size();

/// What a run that breaks `property` says of itself: "the kept bytes differ from the model".
std::string_view broken_property_text(Property property);

/// Every property's verdict over the ranks, the same on every rank.
struct PropertyVerdicts {
  /// For each property (in kPropertyNames' order), the ranks where it does not hold.
  std::array<std::vector<int>, kProperties> mismatch_ranks{};

  /// Whether `property` holds on every rank.
  bool holds(Property property) const { return ranks_where_not(property).empty(); }
  /// The ranks where `property` does not hold.
  const std::vector<int>& ranks_where_not(Property property) const {
    return mismatch_ranks[static_cast<std::size_t>(property)];
  }
  /// Whether every property holds on every rank.
  bool all_hold() const;
  /// "match", or "MISMATCH on ranks 0,2".
  std::string describe(Property property) const;
  /// ": the communication differs from the model" for the first property that does not hold,
  /// or "" when all do.
  std::string first_broken() const;
};

}  // namespace tplab::verify
