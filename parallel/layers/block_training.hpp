/// @file
/// BlockTraining: what a block does besides its arithmetic when it trains: dropout and
/// activation recomputation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "layers/block_dropout.hpp"
#include "layers/recompute.hpp"

namespace tplab {

/// Dropout and recomputation for every block of a run (SchemeOptions::training).
struct BlockTraining {
  DropoutOptions dropout;                                ///< p = 0: no dropout
  DropoutKeying dropout_keying = DropoutKeying::global;  ///< global, or a bug to show
  Recompute recompute = Recompute::none;                 ///< what forward keeps
  /// The global sequence of the block's sequence 0: a data-parallel replica's first (its masks
  /// are the whole batch's, from there on).
  std::int64_t first_sequence = 0;
};

/// " | dropout 0.1 (seed 42, keying global) | recompute full", each part only where it is on:
/// the tail of a run's header line.
std::string describe_block_training(const BlockTraining& training);

/// {"dropout": {"p", "seed", "keying"}, "recompute": name}, as every command's JSON has them.
nlohmann::json block_training_json(const BlockTraining& training);

}  // namespace tplab
