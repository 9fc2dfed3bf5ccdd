/// @file
/// WorkloadSums: the block's six linears and two LayerNorms, or the linear pair's two linears.
#include "workload_sums.hpp"

namespace tplab::model {

WorkloadSums workload_sums(const BlockShape& shape, Workload workload) {
  const std::int64_t h = shape.h;
  if (workload == Workload::linear_pair) {
    // fc1 [h, 4h], fc2 [4h, h]
    return {2, 5 * h, 5 * h, 8 * h * h, 0, 1, false, false};
  }
  // Q, K, V, O [h, h]; fc1 [h, 4h]; fc2 [4h, h]
  return {6, 9 * h, 9 * h, 12 * h * h, 2, 2, true, true};
}

}  // namespace tplab::model
