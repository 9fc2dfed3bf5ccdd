/// @file
/// CommCheck: a rank's measured collectives against the model's, row by row and exactly.
#pragma once

#include <vector>

#include "comm/comm_counters.hpp"
#include "predicted_comm.hpp"

namespace tplab::model {

/// One collective on one group, with one reduction from one root: what the counters measured
/// beside what the model predicts. A row the other side lacks has zeros there, so a sum where
/// the model predicts a max, or a broadcast from another root, is two rows that both differ.
struct CommComparison {
  /// The collective compared.
  Collective collective = Collective::all_reduce;
  /// Its reduction (sum where it reduces nothing) and root (kNoRoot where it has none).
  ///@{
  ReduceOp op = ReduceOp::sum;
  int root = kNoRoot;
  ///@}
  /// The group's name, as the scheme's grid calls it ("tp", "row", ...).
  std::string group;
  int group_size = 0;         ///< measured (0 when nothing was measured)
  std::int64_t calls = 0;     ///< measured
  std::int64_t elements = 0;  ///< measured, N summed over calls
  std::int64_t bytes = 0;     ///< measured
  double bus_elements = 0;    ///< measured
  double seconds = 0;         ///< measured
  /// The group size the model predicts (0 when it predicts nothing here).
  int model_group_size = 0;
  /// The calls the model predicts.
  std::int64_t model_calls = 0;
  /// The elements the model predicts, N summed over calls.
  std::int64_t model_elements = 0;

  /// Calls, elements and group size all equal: there is no tolerance on counts.
  bool matches() const {
    return group_size == model_group_size && calls == model_calls && elements == model_elements;
  }
};

/// A rank's collectives of one run against the model, per phase and in total.
struct CommCheck {
  /// The rows of forward and of backward, one per collective, reduction, root and group.
  ///@{
  std::vector<CommComparison> forward, backward;  ///< one row per collective and group
  std::vector<CommComparison> total;              ///< forward + backward per collective and group
  bool match = false;                             ///< every row of both phases matches
  ///@}

  /// The elements of every measured collective, both phases: the per-rank total verify prints.
  std::int64_t measured_elements() const;
  /// The same, as the model predicts it.
  std::int64_t model_elements() const;
};

/// Compares the counters of one forward and one backward with `model`.
CommCheck check_comm(const std::vector<CollectiveCount>& forward,
                     const std::vector<CollectiveCount>& backward, const CommPrediction& model);

}  // namespace tplab::model
