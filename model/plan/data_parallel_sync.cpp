/// @file
/// The DP gradient all-reduce as a collective of the cost model.
#include "plan/data_parallel_sync.hpp"

namespace tplab::model::plan {

PredictedCollective gradient_all_reduce(std::int64_t gradient_elements, int dp) {
  PredictedCollective row;
  row.collective = Collective::all_reduce;
  row.group = "dp";
  row.group_size = dp;
  row.calls = 1;
  row.elements = gradient_elements;
  return row;
}

}  // namespace tplab::model::plan
