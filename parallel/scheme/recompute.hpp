/// @file
/// Recompute: what forward keeps for backward and what backward computes again (Korthikanti et
/// al. 2022, "Reducing Activation Recomputation in Large Transformer Models").
#pragma once

namespace tplab {

/// Activation recomputation, the same result bit for bit in every mode.
enum class Recompute {
  none,       ///< forward keeps every tensor backward reads
  selective,  ///< the attention core's probabilities are computed again from the kept q and k
  full,       ///< each block keeps only its input and runs its forward again in backward
};

/// "none", "selective" or "full".
inline const char* recompute_name(Recompute mode) {
  switch (mode) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "?";
}

}  // namespace tplab
