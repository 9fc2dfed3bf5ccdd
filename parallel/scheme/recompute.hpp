/// @file
/// Recompute: what forward keeps for backward and what backward computes again (Korthikanti et
/// al. 2022, "Reducing Activation Recomputation in Large Transformer Models").
#pragma once

#include <array>
#include <string_view>

#include "core/names.hpp"

namespace tplab {

/// Activation recomputation, the same result bit for bit in every mode.
enum class Recompute {
  none,       ///< forward keeps every tensor backward reads
  selective,  ///< the attention core's probabilities are computed again from the kept q and k
  full,       ///< each block keeps only its input and runs its forward again in backward, which
              ///< keeps what none keeps, P among it: P is computed twice a step, as with selective
};

/// The names of the modes, as --recompute takes them and the JSON records them.
inline constexpr std::array<Named<Recompute>, 3> kRecomputeNames = {
    {{"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}}};

/// "none", "selective" or "full".
constexpr std::string_view recompute_name(Recompute mode) {
  return name_in(kRecomputeNames, mode);
}

}  // namespace tplab
