#include "run_property.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tplab::verify {

std::string_view broken_property_text(Property property) {
  switch (property) {
    case Property::comm:
      return "the communication differs from the model";
    case Property::kept:
      return "the kept bytes differ from the model";
    case Property::recompute:
      return "recomputing changed some bits";
  }
  return "?";
}

bool PropertyVerdicts::all_hold() const {
  return std::all_of(mismatch_ranks.begin(), mismatch_ranks.end(),
                     [](const std::vector<int>& ranks) { return ranks.empty(); });
}

std::string PropertyVerdicts::describe(Property property) const {
  const std::vector<int>& ranks = ranks_where_not(property);
  if (ranks.empty()) return "match";
  return fmt::format("MISMATCH on rank{} {}", ranks.size() > 1 ? "s" : "", fmt::join(ranks, ","));
}

std::string PropertyVerdicts::first_broken() const {
  for (const Named<Property>& p : kPropertyNames) {
    if (!holds(p.value)) return fmt::format(": {}", broken_property_text(p.value));
  }
  return {};
}

}  // namespace tplab::verify
