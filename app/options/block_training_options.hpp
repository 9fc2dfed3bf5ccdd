/// @file
/// Dropout and activation recomputation: --dropout, --dropout-seed and --recompute, declared once
/// here for every command that runs a block, stored straight into the library's BlockTraining.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

#include "scheme/scheme.hpp"

namespace tplab::app {

/// The masks' seed when --dropout-seed is not given.
inline constexpr std::uint64_t kDefaultDropoutSeed = 42;

/// Adds --dropout, --dropout-seed (setting training's seed to kDefaultDropoutSeed until it is
/// given) and --recompute to `command`, stored in `training`; the parser refuses a probability
/// outside [0, 1) and unknown names before anything launches.
void add_block_training_options(CLI::App& command, BlockTraining& training);

/// Adds --recompute alone (where nothing drops: the model's projections and plans).
CLI::Option* add_recompute_option(CLI::App& command, BlockTraining& training);

/// Adds --dropout-keying: the two ways frameworks keyed their masks wrongly, for verify to show
/// them failing (a command that trains takes none: there the keying is always global).
CLI::Option* add_dropout_keying_option(CLI::App& command, BlockTraining& training);

}  // namespace tplab::app
