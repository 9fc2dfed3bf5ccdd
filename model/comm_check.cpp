/// @file
/// CommCheck: joining counters and predictions on (group, collective).
#include "comm_check.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace tplab::model {
namespace {

using Key = std::tuple<std::string, Collective, ReduceOp, int>;

/// Joins measured and predicted rows; the result is ordered by group, collective, reduction,
/// then root.
std::vector<CommComparison> join(const std::vector<CollectiveCount>& measured,
                                 const std::vector<PredictedCollective>& predicted) {
  std::map<Key, CommComparison> rows;
  for (const CollectiveCount& c : measured) {
    CommComparison& row = rows[{c.group, c.collective, c.op, c.root}];
    row.collective = c.collective;
    row.op = c.op;
    row.root = c.root;
    row.group = c.group;
    row.group_size = c.group_size;
    row.calls += c.calls;
    row.elements += c.elements;
    row.bytes += c.bytes;
    row.bus_elements += c.bus_elements;
    row.seconds += c.seconds;
  }
  for (const PredictedCollective& p : predicted) {
    CommComparison& row = rows[{p.group, p.collective, p.op, p.root}];
    row.collective = p.collective;
    row.op = p.op;
    row.root = p.root;
    row.group = p.group;
    row.model_group_size = p.group_size;
    row.model_calls += p.calls;
    row.model_elements += p.elements;
  }
  std::vector<CommComparison> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

bool all_match(const std::vector<CommComparison>& rows) {
  return std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.matches(); });
}

}  // namespace

std::int64_t CommCheck::measured_elements() const {
  std::int64_t n = 0;
  for (const auto& r : total) n += r.elements;
  return n;
}

std::int64_t CommCheck::model_elements() const {
  std::int64_t n = 0;
  for (const auto& r : total) n += r.model_elements;
  return n;
}

CommCheck check_comm(const std::vector<CollectiveCount>& forward,
                     const std::vector<CollectiveCount>& backward, const CommPrediction& model) {
  CommCheck check;
  check.forward = join(forward, model.forward.rows());
  check.backward = join(backward, model.backward.rows());
  std::vector<CollectiveCount> both = forward;
  both.insert(both.end(), backward.begin(), backward.end());
  check.total = join(both, model.total().rows());
  check.match = all_match(check.forward) && all_match(check.backward);
  return check;
}

}  // namespace tplab::model
