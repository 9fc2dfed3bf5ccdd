#include "layers/scheme_dropout.hpp"

#include <vector>

namespace tplab {

std::shared_ptr<BlockDropout> make_block_dropout(const Scheme& scheme,
                                                 const BlockTraining& training, int world_size,
                                                 int rank, const BlockShape& shape) {
  if (training.dropout.p == 0) return nullptr;
  const std::vector<TensorPlacement> placements =
      scheme.placements(world_size, shape, Workload::block);
  const DropoutPlace place{
      find_placement(placements, "y").blocks.at(static_cast<std::size_t>(rank)),
      training.first_sequence,
      shape.h,
      shape.s,
      shape.heads,
      rank};
  return std::make_shared<BlockDropout>(training.dropout, training.dropout_keying, place);
}

}  // namespace tplab
