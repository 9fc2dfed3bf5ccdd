/// @file
/// BlockTraining: what a block does besides its arithmetic when it trains: dropout and
/// activation recomputation.
#pragma once

#include "layers/block_dropout.hpp"
#include "layers/recompute.hpp"

namespace tplab {

/// Dropout and recomputation for every block of a run (SchemeOptions::training).
struct BlockTraining {
  DropoutOptions dropout;                                ///< p = 0: no dropout
  DropoutKeying dropout_keying = DropoutKeying::global;  ///< global, or a bug to show
  Recompute recompute = Recompute::none;                 ///< what forward keeps
};

}  // namespace tplab
