// The lessons' shared helpers, in one process: where a failed element lies in the placement
// (the table's "worst at Y[2, 40] (block rows 0..7, cols 32..63, held by rank 1)"), and which
// group of the cube a sum was taken over (lessons 09 and 10).
#include <gtest/gtest.h>

#include "lessons/common/cube_sums.hpp"
#include "lessons/common/shard_location.hpp"

namespace tplab::lessons {
namespace {

using Block = std::pair<std::int64_t, std::int64_t>;

TEST(ElementLocation, NamesTheRowColumnBlockAndHolderOfASplitMatrix) {
  // Y [8, 64] split by columns over t = 2 ranks: rank 1 holds columns 32..63.
  const TensorPlacement y = blocked("Y", {8, 64}, "Shard(1)", 2, 1, 2, [](int r) {
    return Block{0, r};
  });
  EXPECT_EQ(element_location("Y", y, 2 * 64 + 40),
            "Y[2, 40] (block rows 0..7, cols 32..63, held by rank 1)");
  EXPECT_EQ(element_location("Y", y, 7 * 64 + 3),
            "Y[7, 3] (block rows 0..7, cols 0..31, held by rank 0)");
}

TEST(ElementLocation, NamesEveryRankThatHoldsAReplicatedBlock) {
  // b1 [64] on a 2 x 2 grid, column block j = r % 2: ranks 1 and 3 hold elements 32..63.
  const TensorPlacement b1 = blocked("b1", {64}, "column block j", 4, 1, 2, [](int r) {
    return Block{0, r % 2};
  });
  EXPECT_EQ(element_location("b1", b1, 40), "b1[40] (block elements 32..63, held by ranks 1, 3)");
  // X [12, 24] in 2 x 2 blocks on rank = 2 i + j: rank 3 holds rows 6..11, cols 12..23.
  const TensorPlacement x = blocked("X", {12, 24}, "block (i, j)", 4, 2, 2, [](int r) {
    return Block{r / 2, r % 2};
  });
  EXPECT_EQ(element_location("X", x, 11 * 24 + 12),
            "X[11, 12] (block rows 6..11, cols 12..23, held by rank 3)");
  const TensorPlacement s = replicated("S", {24}, 4);
  EXPECT_EQ(element_location("S", s, 5), "S[5] (every rank holds all of S)");
}

TEST(ElementLocation, WritesRanksAndRangesShortly) {
  EXPECT_EQ(rank_list({2}, 8), "rank 2");
  EXPECT_EQ(rank_list({0, 4}, 8), "ranks 0, 4");
  EXPECT_EQ(rank_list({0, 1, 2, 3}, 8), "ranks 0..3");
  EXPECT_EQ(rank_list({0, 1, 2, 3}, 4), "every rank");
  EXPECT_EQ(block_ranges({0, 16, 16, 16}, {16, 64}), "rows 0..15, cols 16..31");
  EXPECT_EQ(block_ranges({0, 1, 5, 1}, {64}), "elements 5");
}

/// One integer partial [4, 3] per rank of a 2 x 2 x 2 cube.
std::vector<HostArray> cube_partials() {
  std::vector<HostArray> partials;
  for (int r = 0; r < 8; ++r) partials.push_back(host_array({4, 3}, draw(12, 100 + r, true)));
  return partials;
}

TEST(CubeSums, AReduceScatterSumsTheGroupAndKeepsTheRankRowBlock) {
  const std::vector<HostArray> partials = cube_partials();
  // Rank 5 = (i, j, k) = (1, 0, 1): its output group (k varies) is ranks 1 and 5, and it is
  // second in it, so it keeps rows 2..3 of P(1) + P(5).
  EXPECT_EQ(cube_group(5, 2, Axis3D::output), (std::vector<int>{1, 5}));
  EXPECT_EQ(cube_group(5, 2, Axis3D::weight), (std::vector<int>{5, 7}));
  EXPECT_EQ(cube_group(5, 2, Axis3D::input), (std::vector<int>{4, 5}));
  const HostArray got = reduce_scatter_over(partials, 2, Axis3D::output, 5);
  ASSERT_EQ(got.extents, (Extents{2, 3}));
  for (std::size_t e = 0; e < got.values.size(); ++e) {
    EXPECT_EQ(got.values[e], partials[1].values[6 + e] + partials[5].values[6 + e]);
  }
}

TEST(CubeSums, NamesTheGroupAWrongSumWasTakenOver) {
  const std::vector<HostArray> partials = cube_partials();
  // What every rank holds after a reduce-scatter over the weight group (J) instead of the
  // output group (K): each rank's block matches J and, with integer inputs, not K.
  bool k_matches_everywhere = true;
  for (int rank = 0; rank < 8; ++rank) {
    const HostArray got = reduce_scatter_over(partials, 2, Axis3D::weight, rank);
    EXPECT_TRUE(is_sum_over(Axis3D::weight, got.values, partials, 2, rank));
    k_matches_everywhere &= is_sum_over(Axis3D::output, got.values, partials, 2, rank);
  }
  EXPECT_FALSE(k_matches_everywhere);
  EXPECT_EQ(wrong_group_text(Axis3D::weight, Axis3D::output, 2),
            "this is the sum over the J group (rank 0's: ranks 0, 2); the placement needs the "
            "sum over the K group (rank 0's: ranks 0, 4)");
}

}  // namespace
}  // namespace tplab::lessons
