/// @file
/// The cost model of 1D tensor parallelism with sequence parallelism over t ranks.
#pragma once

#include "rank_cost.hpp"

namespace tplab::model {

/// One rank of 1d-sp over t ranks (group "tp"): collectives, parameters and saved activations.
RankCost cost_1d_sp(const BlockShape& shape, int t, Workload workload);

/// The elements of activations 1d-sp keeps fewer than 1D on each rank at t ranks:
/// (t-1)/t (4 m h + 2 m) for the block (the four [m, h] tensors and LayerNorm's two [m] that
/// 1D keeps whole and 1d-sp keeps split by tokens), (t-1)/t m h for the linear pair.
std::int64_t sequence_parallel_activation_savings(const BlockShape& shape, int t,
                                                  Workload workload);

/// Korthikanti et al. 2022 (Table 2): the bytes of activations one block keeps per rank under
/// 1D tensor parallelism with sequence parallelism, 16-bit activations and 1-byte dropout
/// masks, a the heads:
///   none       s b h / t (34 + 5 a s / h)   (eq. 4)
///   selective  34 s b h / t
///   full       2 s b h / t: the block's input, which sequence parallelism splits (the table's
///              one full row, 2 s b h, counts it whole, as 1D keeps it)
double korthikanti_activation_bytes_1d_sp(const BlockShape& shape, int t, Recompute mode);

}  // namespace tplab::model
