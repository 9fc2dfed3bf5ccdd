/// @file
/// The fixed sinusoidal position embedding of Vaswani et al. (2017).
#pragma once

#include <cstdint>

namespace tplab::gpt {

/// PE[pos, c] for hidden size h: sin(pos / 10000^(c/h)) for even c, cos(pos / 10000^((c-1)/h))
/// for odd c. Fixed rather than learned, so it needs no gradient and no communication: each
/// rank computes the entries of its own tokens and features.
double sinusoidal_position(std::int64_t pos, std::int64_t c, std::int64_t h);

}  // namespace tplab::gpt
