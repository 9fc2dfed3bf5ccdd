/// @file
/// The single-device reference trained on the same data from the same parameters.
#pragma once

#include <cstdint>
#include <vector>

#include "gpt/gpt_shape.hpp"
#include "host_array.hpp"

namespace tplab::train {

/// The mean loss of each of `steps` SGD steps of the reference GPT (reference/gpt.hpp) in f64,
/// from `initial` parameters on synthetic_batch(shape, seed, step).
std::vector<double> reference_losses(const gpt::GptShape& shape, const verify::HostArrays& initial,
                                     std::uint64_t seed, std::int64_t steps, double learning_rate);

}  // namespace tplab::train
