/// @file
/// The GPT's parameters before the first step, drawn from a seed.
#pragma once

#include <cstdint>

#include "gpt/gpt_shape.hpp"
#include "host_array.hpp"

namespace tplab::train {

/// Every parameter of the model under its global name ("embedding", "layer0.wq", ...), the
/// same on every rank: E uniform in [-1, 1]; weights uniform in +-1/sqrt(fan-in); biases 0,
/// but b_head, whose every entry is `logit_offset` (TrainConfig::logit_offset); LayerNorm gamma
/// 1 and beta 0.
verify::HostArrays initial_parameters(const gpt::GptShape& shape, std::uint64_t seed,
                                      double logit_offset);

}  // namespace tplab::train
