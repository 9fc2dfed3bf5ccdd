// Placements as data: every rank's blocks tile each tensor, and schemes refuse bad sizes.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "registry/make_scheme.hpp"
#include "scheme/scheme.hpp"

namespace tplab {
namespace {

/// Every element of the global tensor is held by the same number of ranks (1 when sharded,
/// p when replicated), and no shard sticks out of the tensor.
void expect_even_cover(const TensorPlacement& p) {
  const std::int64_t rows = p.global.size() == 1 ? 1 : p.global[0];
  const std::int64_t cols = p.global.back();
  std::vector<int> holders(static_cast<std::size_t>(rows * cols), 0);
  for (const BlockRange& b : p.blocks) {
    ASSERT_LE(b.row0 + b.rows, rows) << p.tensor;
    ASSERT_LE(b.col0 + b.cols, cols) << p.tensor;
    for (std::int64_t r = b.row0; r < b.row0 + b.rows; ++r) {
      for (std::int64_t c = b.col0; c < b.col0 + b.cols; ++c) ++holders[r * cols + c];
    }
  }
  const std::set<int> distinct(holders.begin(), holders.end());
  EXPECT_EQ(distinct.size(), 1u) << p.tensor << " is covered unevenly";
  EXPECT_GT(*distinct.begin(), 0) << p.tensor << " has elements no rank holds";
}

TEST(Placement, OneDimensionalSchemeCoversEveryTensor) {
  const auto scheme = make_scheme("1d");
  const BlockShape shape{2, 8, 16, 4};
  for (int t : {1, 2, 4}) {
    for (auto workload : {Workload::block, Workload::linear_pair}) {
      const auto placements = scheme->placements(t, shape, workload);
      for (const auto& p : placements) expect_even_cover(p);
    }
    const auto p = scheme->placements(t, shape, Workload::block);
    EXPECT_EQ(find_placement(p, "wq").local_extents(t - 1), (Extents{16, 16 / t}));
    EXPECT_EQ(find_placement(p, "wo").local_extents(0), (Extents{16 / t, 16}));
    EXPECT_EQ(find_placement(p, "d_w2").local_extents(0), (Extents{64 / t, 16}));
    EXPECT_EQ(find_placement(p, "bq").local_extents(0), (Extents{16 / t}));
    EXPECT_EQ(find_placement(p, "x").rule, "Replicate");
  }
}

TEST(Placement, OneDimensionalSchemeRefusesWorldSizesThatSplitHeads) {
  const auto scheme = make_scheme("1d");
  const BlockShape shape{2, 8, 16, 4};
  try {
    scheme->validate(3, shape);
    FAIL() << "3 ranks cannot split 4 heads";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("1D with 4 heads needs 1, 2 or 4 ranks; got 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(scheme->usable_world_sizes(shape, 8), (std::vector<int>{1, 2, 4}));
}

TEST(Placement, SequenceParallelSplitsTheActivationsByTokens) {
  const auto scheme = make_scheme("1d-sp");
  const BlockShape shape{2, 8, 16, 4};  // m = 16 tokens
  for (int t : {1, 2, 4}) {
    for (auto workload : {Workload::block, Workload::linear_pair}) {
      for (const auto& p : scheme->placements(t, shape, workload)) expect_even_cover(p);
    }
    const auto p = scheme->placements(t, shape, Workload::block);
    for (auto name : {"x", "y", "dx", "dy"}) {
      EXPECT_EQ(find_placement(p, name).blocks.at(static_cast<std::size_t>(t - 1)),
                (BlockRange{(t - 1) * 16 / t, 16 / t, 0, 16}))
          << name << ": rank r holds tokens r*m/t..(r+1)*m/t-1, every feature";
    }
    EXPECT_EQ(find_placement(p, "wq").local_extents(t - 1), (Extents{16, 16 / t}));
    EXPECT_EQ(find_placement(p, "d_ln1_gamma").rule, "Replicate");
  }
  // 4 heads split over 1, 2 and 4 ranks, but 6 tokens only over 1 and 2.
  EXPECT_EQ(scheme->usable_world_sizes({1, 6, 16, 4}, 8), (std::vector<int>{1, 2}));
  EXPECT_EQ(make_scheme("1d")->usable_world_sizes({1, 6, 16, 4}, 8), (std::vector<int>{1, 2, 4}));
}

TEST(Placement, MeshSchemesCoverEveryTensor) {
  const BlockShape shape{12, 4, 72, 12};
  for (const auto& [name, depth, world] :
       {std::tuple{"2d", 0, 4}, {"2d", 0, 9}, {"2.5d", 2, 8}, {"2.5d", 1, 4}, {"2.5d", 2, 18}}) {
    const auto scheme = make_scheme(name, SchemeOptions{.depth = depth});
    for (auto workload : {Workload::block, Workload::linear_pair}) {
      for (const auto& p : scheme->placements(world, shape, workload)) expect_even_cover(p);
    }
  }
  // 2.5D, d = 2, q = 2: rank (i, j, k) = j + 2i + 4k holds token block k*2 + i of 4.
  const auto p =
      make_scheme("2.5d", SchemeOptions{.depth = 2})->placements(8, shape, Workload::block);
  const TensorPlacement& x = find_placement(p, "x");
  EXPECT_EQ(x.blocks[7], (BlockRange{3 * 12, 12, 36, 36}));  // i=1, j=1, k=1
  EXPECT_EQ(find_placement(p, "d_w1").blocks[7], find_placement(p, "d_w1").blocks[3]);
  EXPECT_EQ(find_placement(p, "b1").local_extents(5), (Extents{144}));
}

TEST(Placement, MeshSchemesNameWhatWouldWork) {
  const BlockShape shape{4, 8, 32, 4};
  try {
    make_scheme("2d")->validate(6, shape);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 1, 4 or 16 ranks; got 6"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(make_scheme("2.5d")->usable_world_sizes(shape, 16), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_THROW(make_scheme("2.5d", SchemeOptions{.depth = -1}), UsageError);
}

TEST(Placement, UnknownSchemeNamesTheKnownOnes) {
  try {
    make_scheme("4d");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("known: 1d, 1d-sp, 2d, 2.5d, 3d"), std::string::npos);
  }
}

TEST(Placement, ThreeDimensionalSchemeCoversEveryTensor) {
  const auto scheme = make_scheme("3d");
  const BlockShape shape{4, 9, 36, 6};  // 36 tokens, hidden 36: divisible by 1, 4 and 9
  for (std::int64_t q : {1, 2, 3}) {
    const int p = static_cast<int>(q * q * q);
    for (auto workload : {Workload::block, Workload::linear_pair}) {
      for (const auto& placement : scheme->placements(p, shape, workload)) {
        expect_even_cover(placement);
      }
    }
    const auto placements = scheme->placements(p, shape, Workload::block);
    const auto local = [&](std::string_view tensor) {
      return find_placement(placements, tensor).local_extents(p - 1);
    };
    EXPECT_EQ(local("x"), (Extents{36 / (q * q), 36 / q}));
    EXPECT_EQ(local("wq"), (Extents{36 / (q * q), 36 / q}));
    EXPECT_EQ(local("w1"), (Extents{36 / (q * q), 144 / q}));
    EXPECT_EQ(local("d_w2"), (Extents{144 / (q * q), 36 / q}));
    EXPECT_EQ(local("b1"), (Extents{144 / q}));
    EXPECT_EQ(local("ln2_gamma"), (Extents{36 / q}));
  }
}

TEST(Placement, ThreeDimensionalBlocksFollowTheCoordinates) {
  const auto placements = make_scheme("3d")->placements(8, {4, 9, 36, 6}, Workload::block);
  const auto block = [&](std::string_view tensor, int rank) {
    return find_placement(placements, tensor).blocks.at(static_cast<std::size_t>(rank));
  };
  // rank 5 = (i, j, k) = (1, 0, 1); row blocks of 9 tokens or 9 features, column blocks of 18
  EXPECT_EQ(block("x", 5), (BlockRange{9, 9, 18, 18}));    // token block j*q + i = 1, block k
  EXPECT_EQ(block("wq", 5), (BlockRange{18, 9, 18, 18}));  // rows k*q + j = 2, columns i
  EXPECT_EQ(block("wo", 5), (BlockRange{18, 9, 18, 18}));  // rows i*q + j = 2, columns k
  EXPECT_EQ(block("bq", 5), (BlockRange{0, 1, 18, 18}));   // block i
  EXPECT_EQ(block("bo", 5), (BlockRange{0, 1, 18, 18}));   // block k
  // rank 6 = (0, 1, 1): another token block, the same Wq columns as every rank with i = 0
  EXPECT_EQ(block("x", 6), (BlockRange{18, 9, 18, 18}));
  EXPECT_EQ(block("wq", 6), (BlockRange{27, 9, 0, 18}));
  EXPECT_EQ(block("wo", 6), (BlockRange{9, 9, 18, 18}));
  // a bias is the same on the q^2 ranks of a plane: bq on the ranks with i = 1
  for (int rank : {1, 3, 5, 7}) EXPECT_EQ(block("bq", rank), block("bq", 1));
  // LayerNorm parameters: the same on the ranks with k = 0
  for (int rank : {0, 1, 2, 3}) EXPECT_EQ(block("ln1_gamma", rank), block("ln1_gamma", 0));
}

/// The message validate() gives, or "" when it accepts.
std::string refusal(const Scheme& scheme, int world_size, const BlockShape& shape) {
  try {
    scheme.validate(world_size, shape);
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

TEST(Placement, ThreeDimensionalSchemeNamesTheBrokenRule) {
  const auto scheme = make_scheme("3d");
  EXPECT_EQ(refusal(*scheme, 4, {4, 18, 72, 12}),
            "3D arranges the ranks in a cube of q x q x q, so it needs 1, 8 or 27 ranks; got 4");
  EXPECT_EQ(refusal(*scheme, 8, {3, 2, 16, 4}),
            "3D cuts the tokens into q^2 blocks, so with 6 tokens it needs 1 rank; got 8");
  EXPECT_EQ(refusal(*scheme, 8, {4, 2, 18, 2}),
            "3D cuts the hidden features into q^2 blocks, so with hidden size 18 it needs 1 rank; "
            "got 8");
  EXPECT_EQ(refusal(*scheme, 8, {9, 4, 36, 3}),
            "3D gives each rank n/q whole heads, so with 3 heads it needs 1 or 27 ranks; got 8");
  EXPECT_EQ(refusal(*scheme, 27, {4, 18, 72, 12}), "");
  EXPECT_EQ(scheme->usable_world_sizes({4, 18, 72, 12}, 64), (std::vector<int>{1, 8, 27}));
}

}  // namespace
}  // namespace tplab
