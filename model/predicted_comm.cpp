/// @file
/// PredictedComm: adding up and listing the collectives the model predicts.
#include "predicted_comm.hpp"

#include "core/error.hpp"

namespace tplab::model {

double PredictedCollective::bus_elements() const {
  return static_cast<double>(elements) * bus_factor(collective, group_size);
}

void PhaseComm::add(Collective collective, const std::string& group, int group_size,
                    std::int64_t calls, std::int64_t elements, ReduceOp op) {
  check(!rooted(collective),
        "PhaseComm::add: a broadcast or reduce needs its root, a send or recv its peer "
        "(add_rooted)");
  check(reduces(collective) || op == ReduceOp::sum,
        "PhaseComm::add: this collective reduces nothing");
  add_row({collective, op, kNoRoot, group, group_size, calls, elements});
}

void PhaseComm::add_rooted(Collective collective, const std::string& group, int group_size,
                           int root, std::int64_t calls, std::int64_t elements) {
  check(rooted(collective), "PhaseComm::add_rooted: this collective has no root (add)");
  check(root >= 0 && root < group_size, "PhaseComm::add_rooted: the root is not in the group");
  add_row({collective, ReduceOp::sum, root, group, group_size, calls, elements});
}

void PhaseComm::add_row(const PredictedCollective& add) {
  check(add.group_size >= 1 && add.calls >= 0 && add.elements >= 0,
        "PhaseComm::add: group size, calls and elements cannot be negative");
  if (add.group_size == 1 || add.calls == 0) return;
  PredictedCollective& row = rows_[{add.group, add.collective, add.op, add.root}];
  check(row.calls == 0 || row.group_size == add.group_size,
        "PhaseComm::add: one group name with two sizes");
  const std::int64_t calls = row.calls + add.calls, elements = row.elements + add.elements;
  row = add;
  row.calls = calls;
  row.elements = elements;
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
    for (const auto& r : phase->rows()) sum.add_row(r);
  }
  return sum;
}

}  // namespace tplab::model
