/// @file
/// PredictedComm: adding up and listing the collectives the model predicts.
#include "predicted_comm.hpp"

#include "core/error.hpp"

namespace tplab::model {

double PredictedCollective::bus_elements() const {
  return static_cast<double>(elements) * bus_factor(collective, group_size);
}

void PhaseComm::add(Collective collective, const std::string& group, int group_size,
                    std::int64_t calls, std::int64_t elements) {
  check(group_size >= 1 && calls >= 0 && elements >= 0,
        "PhaseComm::add: group size, calls and elements cannot be negative");
  if (group_size == 1 || calls == 0) return;
  PredictedCollective& row = rows_[{group, collective}];
  check(row.calls == 0 || row.group_size == group_size,
        "PhaseComm::add: one group name with two sizes");
  row.collective = collective;
  row.group = group;
  row.group_size = group_size;
  row.calls += calls;
  row.elements += elements;
}

std::vector<PredictedCollective> PhaseComm::rows() const {
  std::vector<PredictedCollective> out;
  out.reserve(rows_.size());
  for (const auto& [key, row] : rows_) out.push_back(row);
  return out;
}

std::int64_t PhaseComm::total_elements() const {
  std::int64_t n = 0;
  for (const auto& [key, row] : rows_) n += row.elements;
  return n;
}

double PhaseComm::total_bus_elements() const {
  double n = 0;
  for (const auto& [key, row] : rows_) n += row.bus_elements();
  return n;
}

PhaseComm CommPrediction::total() const {
  PhaseComm sum;
  for (const PhaseComm* phase : {&forward, &backward}) {
    for (const auto& r : phase->rows()) {
      sum.add(r.collective, r.group, r.group_size, r.calls, r.elements);
    }
  }
  return sum;
}

}  // namespace tplab::model
