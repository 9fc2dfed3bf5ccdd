// The lessons' shared helpers, in one process: where a failed element lies in the placement
// (the table's "worst at Y[2, 40] (block rows 0..7, cols 32..63, held by rank 1)"), whose
// shards are wrong ("Y: wrong on ranks 1, 3 (blocks (0, 1), (1, 1)); right on ranks 0, 2"), and
// which group of the cube a sum was taken over (lessons 09 and 10).
#include <gtest/gtest.h>

#include "harness.hpp"
#include "lessons/common/cube_sums.hpp"
#include "lessons/common/shard_location.hpp"
#include "problem.hpp"
#include "tp3d/scheme_3d.hpp"

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

TEST(RankSplit, NamesTheWrongRanksWithTheirBlocksAndTheRightOnes) {
  // Y [12, 18] in 2 x 2 blocks on rank = 2 i + j: ranks 1 and 3 hold column block 1.
  const TensorPlacement y = blocked("Y", {12, 18}, "block (i, j)", 4, 2, 2, [](int r) {
    return Block{r / 2, r % 2};
  });
  EXPECT_EQ(describe_rank_split("Y", y, {{1, 3}, {0, 2}}),
            "Y: wrong on ranks 1, 3 (blocks (0, 1), (1, 1)); right on ranks 0, 2");
  EXPECT_EQ(describe_rank_split("Y", y, {{0, 1, 2, 3}, {}}),
            "Y: wrong on every rank (blocks (0, 0), (0, 1), (1, 0), (1, 1))");
  EXPECT_EQ(describe_rank_split("Y", y, {{}, {0, 1, 2, 3}}), "");
  // b1 [64], column block j = r % 2 on a 2 x 2 grid: two ranks hold each block, named once
  const TensorPlacement b1 = blocked("b1", {64}, "column block j", 4, 1, 2, [](int r) {
    return Block{0, r % 2};
  });
  EXPECT_EQ(describe_rank_split("b1", b1, {{1, 3}, {0, 2}}),
            "b1: wrong on ranks 1, 3 (block (1)); right on ranks 0, 2");
  // every rank holds all of S: no block to name
  const TensorPlacement s = replicated("S", {24}, 4);
  EXPECT_EQ(describe_rank_split("S", s, {{2}, {0, 1, 3}}),
            "S: wrong on rank 2; right on ranks 0, 1, 3");
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

/// The block of `a` that `placement` gives `rank`, as a matrix.
HostArray block_of(const HostArray& a, const TensorPlacement& placement, int rank) {
  const BlockRange& b = placement.blocks.at(static_cast<std::size_t>(rank));
  const HostArray matrix = a.extents.size() == 1 ? HostArray{{1, a.extents[0]}, a.values} : a;
  return matrix_block(matrix, b.row0, b.rows, b.col0, b.cols);
}

TEST(CubeSums, TheOutputGroupSumOfLesson09sPartialsIsEveryRanksBlockOfY) {
  // Lesson 09: X [8, 16] x W [16, 64] on a 2 x 2 x 2 cube; rank (i, j, k) holds Y's token
  // block j q + k of q^2 and out block i of q.
  const int q = 2;
  const HostArray x = host_array({8, 16}, draw(8 * 16, 9, true));
  const HostArray w = host_array({16, 64}, draw(16 * 64, 10, true));
  const HostArray y = reference_matmul(x, w);
  const std::vector<HostArray> partials =
      linear_3d_forward_partials(x, w, tp3d::kReadsBlockLayout, q).y;
  bool weight_matches_everywhere = true;
  for (int rank = 0; rank < 8; ++rank) {
    const CubeCoordinates at = cube_coordinates(rank, q);
    const HostArray want = matrix_block(y, (at.j * q + at.k) * 2, 2, at.i * 32, 32);
    EXPECT_EQ(reduce_scatter_over(partials, q, Axis3D::output, rank).values, want.values);
    weight_matches_everywhere &= is_sum_over(Axis3D::weight, want.values, partials, q, rank);
  }
  EXPECT_FALSE(weight_matches_everywhere);
}

TEST(CubeSums, Lesson10sBackwardPartialsSumToEveryRanksGradientBlocks) {
  // Lesson 10's linear pair Y = (X W1 + b1) W2 + b2 in the 3D scheme's placements: fc1 reads
  // the block's layout, fc2 writes it; dX sums over fc1's input axis, dW over the weight axis.
  const int q = 2, p = 8;
  const BlockShape shape{2, 4, 16, 4};
  const Workload pair = Workload::linear_pair;
  const verify::HostArrays in = verify::make_inputs(shape, 13, pair, verify::Values::integer);
  const verify::HostArrays want = verify::reference_outputs(shape, in, pair);
  const std::vector<TensorPlacement> places = tp3d::Scheme3D().placements(p, shape, pair);
  HostArray hidden = reference_matmul(in.at("x"), in.at("w1"));  // [m, 4h], + b1
  for (std::size_t e = 0; e < hidden.values.size(); ++e) {
    hidden.values[e] += in.at("b1").values[e % in.at("b1").values.size()];
  }
  const HostArray d_hidden = reference_matmul(in.at("dy"), reference_transpose(in.at("w2")));
  const LinearPartials fc1 =
      linear_3d_backward_partials(in.at("x"), in.at("w1"), d_hidden, tp3d::kReadsBlockLayout, q);
  const LinearPartials fc2 =
      linear_3d_backward_partials(hidden, in.at("w2"), in.at("dy"), tp3d::kWritesBlockLayout, q);
  for (int rank = 0; rank < p; ++rank) {
    const auto expect_block = [&](const char* name, const std::vector<HostArray>& partials,
                                  Axis3D axis) {
      EXPECT_EQ(reduce_scatter_over(partials, q, axis, rank).values,
                block_of(want.at(name), find_placement(places, name), rank).values)
          << name << " on rank " << rank;
    };
    expect_block("dx", fc1.dx, Axis3D::input);
    expect_block("d_w1", fc1.dw, Axis3D::weight);
    expect_block("d_w2", fc2.dw, Axis3D::weight);
  }
}

}  // namespace
}  // namespace tplab::lessons
