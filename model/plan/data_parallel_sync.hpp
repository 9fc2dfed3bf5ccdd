/// @file
/// Data parallelism's one collective: after the last micro-batch's backward, every replica's
/// gradients are summed over its DP group (PyTorch DDP, Megatron's DistributedDataParallel).
///
/// A device all-reduces the gradients of the parameters it holds, N elements, with the ring:
/// 2 (d - 1) / d x N elements cross each device's link (the bus volume of alpha_beta.hpp), in
/// 2 (d - 1) ring steps. Modelled as one call after backward with nothing to overlap it: real
/// frameworks split it into buckets and start them during backward, which hides part of it.
#pragma once

#include <cstdint>

#include "predicted_comm.hpp"

namespace tplab::model::plan {

/// The gradient all-reduce of one device that holds `gradient_elements` parameters, over a DP
/// group of `dp` devices, as one call on the group "dp". With dp = 1 it moves nothing (the row
/// has a group of one and no bus elements).
PredictedCollective gradient_all_reduce(std::int64_t gradient_elements, int dp);

}  // namespace tplab::model::plan
