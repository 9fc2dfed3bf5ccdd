/// @file
/// WorkloadSums: the few sums over a workload's layers that every scheme's formulas use.
#pragma once

#include <cstdint>

#include "scheme/block_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::model {

/// A workload's linears Y = X W + b (W [in, out]) and LayerNorms, summed the way the cost
/// formulas need them. With h the hidden size:
///
///   | workload    | linears                  | in    | out   | weights | layernorms | sublayers |
///   | block       | Q, K, V, O (h x h), fc1 (h x 4h), fc2 (4h x h) | 9h | 9h | 12 h^2 | 2 | 2 |
///   | linear pair | fc1 (h x 4h), fc2 (4h x h)                     | 5h | 5h |  8 h^2 | 0 | 1 |
///
/// A sublayer is attention or the MLP: one group of linears that read one input, then one
/// linear that brings the result back to the block's layout.
struct WorkloadSums {
  int linears = 0;           ///< how many linears
  std::int64_t in = 0;       ///< sum of their in-features
  std::int64_t out = 0;      ///< sum of their out-features (the bias elements)
  std::int64_t weights = 0;  ///< sum of in x out (the weight elements)
  int layernorms = 0;        ///< how many LayerNorms (each with gamma and beta of h)
  int sublayers = 0;         ///< attention and MLP, or the MLP alone
  bool attention = false;    ///< whether the workload has the attention core
  bool gelu = false;         ///< whether the MLP has its GELU (the linear pair has none)

  /// Parameter tensors: a weight and a bias per linear, gamma and beta per LayerNorm.
  int parameter_tensors() const { return 2 * linears + 2 * layernorms; }
};

/// The sums of `workload` at `shape`.
WorkloadSums workload_sums(const BlockShape& shape, Workload workload);

}  // namespace tplab::model
