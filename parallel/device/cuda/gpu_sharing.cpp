#include "device/cuda/gpu_sharing.hpp"

#include <limits>

#include "core/error.hpp"

namespace tplab::cuda {

int gpu_of_node_rank(int node_rank, int gpus) {
  check(node_rank >= 0 && gpus > 0, "gpu_of_node_rank: bad arguments");
  return node_rank % gpus;
}

int ranks_on_gpu(int node_ranks, int gpus, int ordinal) {
  check(node_ranks > 0 && gpus > 0 && ordinal >= 0 && ordinal < gpus,
        "ranks_on_gpu: bad arguments");
  // ranks ordinal, ordinal + gpus, ordinal + 2 gpus, ... below node_ranks
  return ordinal < node_ranks ? (node_ranks - 1 - ordinal) / gpus + 1 : 0;
}

std::uint64_t pool_release_threshold(std::uint64_t gpu_memory, int ranks_sharing) {
  check(ranks_sharing > 0, "pool_release_threshold: a GPU is shared by at least one rank");
  if (ranks_sharing == 1) return std::numeric_limits<std::uint64_t>::max();
  return gpu_memory / static_cast<std::uint64_t>(ranks_sharing);
}

}  // namespace tplab::cuda
