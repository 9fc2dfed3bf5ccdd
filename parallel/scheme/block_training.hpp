/// @file
/// BlockTraining: what a block does besides its arithmetic when it trains: dropout and
/// activation recomputation. Plain options, part of SchemeOptions; the layers that act on them
/// are in layers/ (block_dropout.hpp, pre_ln_block.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/names.hpp"
#include "device/dropout_mask.hpp"
#include "scheme/recompute.hpp"

namespace tplab {

/// How a rank keys its masks. Only `global` is right; the others are the two bugs that
/// frameworks shipped, kept so that verify and the lessons can show them failing.
enum class DropoutKeying {
  global,     ///< (seed, step, layer, site, the element's global place): the reference's masks
  rank_seed,  ///< each rank its own seed: replicated tensors get different masks on each rank
  local,      ///< one seed, the element's place in the rank's own shard: every shard the same mask
};

/// The names of the keyings, as verify's --dropout-keying takes them and the JSON records them.
inline constexpr std::array<Named<DropoutKeying>, 3> kDropoutKeyingNames = {
    {{"global", DropoutKeying::global},
     {"rank-seed", DropoutKeying::rank_seed},
     {"local", DropoutKeying::local}}};

/// "global", "rank-seed" or "local".
constexpr std::string_view dropout_keying_name(DropoutKeying keying) {
  return name_in(kDropoutKeyingNames, keying);
}

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
