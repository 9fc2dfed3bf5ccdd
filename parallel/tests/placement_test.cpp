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
