/// @file
/// The MLP's nonlinearity, switchable so the linear pair can be checked exactly.
#pragma once

namespace tplab {

/// gelu: the block's MLP. none: the linear pair (X W1 + b1) W2 + b2 of the exact checks, whose
/// sums of small integers are exact in every precision.
enum class Activation { gelu, none };

}  // namespace tplab
