/// @file
/// Ranks that share one GPU: which GPU a rank takes, how many ranks take it, and how much freed
/// memory each keeps for itself. Plain C++, tested on machines without a GPU.
#pragma once

#include <cstdint>

namespace tplab::cuda {

/// The GPU of the rank with index `node_rank` among the ranks of its node: node_rank mod gpus,
/// so ranks spread over a node's GPUs and share them when there are more ranks than GPUs.
int gpu_of_node_rank(int node_rank, int gpus);

/// How many of a node's `node_ranks` ranks take GPU `ordinal` (gpu_of_node_rank).
int ranks_on_gpu(int node_ranks, int gpus, int ordinal);

/// The bytes of freed memory CUDA's stream-ordered pool keeps cached for one rank after a
/// synchronization (cudaMemPoolAttrReleaseThreshold). A rank alone on its GPU keeps it all: a
/// step frees and allocates the same sizes again and again, and handing memory back to the
/// driver would make every allocation slow. Ranks that share a GPU keep at most an equal share
/// of its memory each and hand back the rest, so that what one rank freed can serve another
/// (with every rank keeping its peak, a later peak of another rank runs out of memory).
std::uint64_t pool_release_threshold(std::uint64_t gpu_memory, int ranks_sharing);

}  // namespace tplab::cuda
