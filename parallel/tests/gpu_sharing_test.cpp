// Ranks that share a GPU, on the CPU: which GPU each rank takes, how many take each, and the
// memory each keeps cached.
#include "device/cuda/gpu_sharing.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "core/error.hpp"

namespace tplab::cuda {
namespace {

TEST(GpuSharing, RanksOnEachGpuAddUpToTheNodesRanks) {
  for (int gpus = 1; gpus <= 8; ++gpus) {
    for (int ranks = 1; ranks <= 27; ++ranks) {
      std::vector<int> counted(static_cast<std::size_t>(gpus), 0);
      for (int r = 0; r < ranks; ++r)
        ++counted[static_cast<std::size_t>(gpu_of_node_rank(r, gpus))];
      for (int g = 0; g < gpus; ++g) {
        EXPECT_EQ(ranks_on_gpu(ranks, gpus, g), counted[static_cast<std::size_t>(g)])
            << ranks << " ranks on " << gpus << " GPUs, GPU " << g;
      }
    }
  }
}

TEST(GpuSharing, ARankAloneKeepsItsFreedMemory) {
  EXPECT_EQ(pool_release_threshold(141ull << 30, 1), std::numeric_limits<std::uint64_t>::max());
}

TEST(GpuSharing, RanksThatShareKeepAnEqualShareEach) {
  const std::uint64_t memory = 141ull << 30;
  EXPECT_EQ(pool_release_threshold(memory, 4), memory / 4);
  EXPECT_LE(4 * pool_release_threshold(memory, 4), memory);
  EXPECT_THROW(pool_release_threshold(memory, 0), InternalError);
}

}  // namespace
}  // namespace tplab::cuda
