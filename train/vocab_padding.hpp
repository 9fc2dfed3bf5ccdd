/// @file
/// A vocabulary padded up to a multiple of its parts, as Megatron-LM pads it: the parameters
/// that grow, and the check that the padding took no part in training.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "host_array.hpp"
#include "scheme/parallel_module.hpp"
#include "scheme/placement.hpp"

namespace tplab::train {

/// `initial` (over V ids) grown to `padded` ids: the embedding gains rows and the LM head's
/// weight and bias gain columns, all zero. The other parameters are as they were.
verify::HostArrays padded_parameters(const verify::HostArrays& initial, std::int64_t vocab,
                                     std::int64_t padded);

/// Empty when every element of the padding (the embedding's rows, the head's weight columns
/// and bias entries from id `vocab` on) is still exactly 0 on every rank that holds some;
/// otherwise the first parameter and rank where one is not. A padded id takes no probability,
/// so no gradient reaches it, under SGD or AdamW. `tensors` holds the parameters, or with
/// `prefix` "d_" their gradients. Collective over `world`.
std::string padding_problem(Comm& world, Device& device, const TensorMap& tensors,
                            const std::vector<TensorPlacement>& placements, std::int64_t vocab,
                            std::string_view prefix = "");

}  // namespace tplab::train
