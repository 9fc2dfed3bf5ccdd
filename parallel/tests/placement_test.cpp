// Placements as data: every rank's blocks tile each tensor, and schemes refuse bad sizes.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
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

TEST(Placement, MeshSchemesCoverEveryTensor) {
  const BlockShape shape{12, 4, 72, 12};
  for (const auto& [name, depth, world] :
       {std::tuple{"2d", 0, 4}, {"2d", 0, 9}, {"2.5d", 2, 8}, {"2.5d", 1, 4}, {"2.5d", 2, 18}}) {
    const auto scheme = make_scheme(name, SchemeOptions{depth});
    for (auto workload : {Workload::block, Workload::linear_pair}) {
      for (const auto& p : scheme->placements(world, shape, workload)) expect_even_cover(p);
    }
  }
  // 2.5D, d = 2, q = 2: rank (i, j, k) = j + 2i + 4k holds token block k*2 + i of 4.
  const auto p = make_scheme("2.5d", SchemeOptions{2})->placements(8, shape, Workload::block);
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
  EXPECT_THROW(make_scheme("2.5d", SchemeOptions{-1}), UsageError);
}

TEST(Placement, UnknownSchemeNamesTheKnownOnes) {
  try {
    make_scheme("4d");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("known: 1d"), std::string::npos);
  }
}

}  // namespace
}  // namespace tplab
