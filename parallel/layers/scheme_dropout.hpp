/// @file
/// make_block_dropout: the BlockDropout of a scheme's block on one rank, placed where the
/// scheme's placements put that rank's part of the output.
#pragma once

#include <memory>

#include "layers/block_dropout.hpp"
#include "scheme/scheme.hpp"

namespace tplab {

/// The dropout of `scheme`'s block on world rank `rank` of `world_size`, placed where the
/// scheme's placements put that rank's block of the output y; nullptr when training.dropout.p
/// is 0. Every scheme's make_module shares one between its block and its attention core.
std::shared_ptr<BlockDropout> make_block_dropout(const Scheme& scheme,
                                                 const BlockTraining& training, int world_size,
                                                 int rank, const BlockShape& shape);

}  // namespace tplab
