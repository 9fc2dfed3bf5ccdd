/// @file
/// Grid1D: the one group of t ranks of Megatron-style tensor parallelism.
#pragma once

#include <memory>

#include "comm/comm.hpp"

namespace tplab {

/// All ranks of the world form one tensor-parallel group "tp" of size t.
struct Grid1D {
  std::unique_ptr<Comm> tp;  ///< every rank of the world, as the group "tp"

  /// Collective over `world`.
  static Grid1D build(Comm& world);
};

}  // namespace tplab
