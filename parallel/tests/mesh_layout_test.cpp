// The mesh of D replicas: Megatron's rank order, the groups it implies, and where every tensor
// lives on the world.
#include "mesh/mesh_layout.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "mesh/data_parallel_scheme.hpp"
#include "registry/make_scheme.hpp"

namespace tplab {
namespace {

TEST(MeshLayout, ReplicaRanksAreConsecutiveAndDpGroupsAreColumns) {
  const MeshLayout mesh{3, 4};  // D = 3 replicas of P = 4 ranks
  EXPECT_EQ(mesh.world_size(), 12);
  EXPECT_EQ(mesh.replica_of(9), 2);
  EXPECT_EQ(mesh.scheme_rank_of(9), 1);
  EXPECT_EQ(mesh.replica_ranks(9), (std::vector<int>{8, 9, 10, 11}));
  EXPECT_EQ(mesh.dp_ranks(9), (std::vector<int>{1, 5, 9}));
}

TEST(MeshLayout, ActivationsShiftByReplicaParametersRepeat) {
  const auto scheme = make_scheme("1d", {.dp = 2});
  const BlockShape shape{4, 3, 8, 2};  // m = 12 tokens, 6 a replica
  const auto placements = scheme->placements(4, shape, Workload::block);
  const TensorPlacement& x = find_placement(placements, "x");
  EXPECT_EQ(x.global, (Extents{12, 8}));
  EXPECT_EQ(x.blocks[1], (BlockRange{0, 6, 0, 8}));
  EXPECT_EQ(x.blocks[3], (BlockRange{6, 6, 0, 8}));
  const TensorPlacement& w1 = find_placement(placements, "d_w1");
  EXPECT_EQ(w1.blocks[0], w1.blocks[2]);  // the same shard in both replicas
  EXPECT_EQ(w1.blocks[1], w1.blocks[3]);
  EXPECT_NE(w1.blocks[0], w1.blocks[1]);  // and split over tp inside one
  EXPECT_EQ(scheme->describe_grid(4, shape), "dp=2 t=2");
}

TEST(MeshLayout, RefusesWorldsAndBatchesThatDoNotSplit) {
  const auto scheme = make_scheme("1d", {.dp = 2});
  EXPECT_NE(scheme->why_not(3, {4, 3, 8, 2}), "");
  EXPECT_EQ(scheme->why_not(4, {4, 3, 8, 2}), "");
  EXPECT_THROW(scheme->validate(4, {3, 3, 8, 2}), UsageError);
  EXPECT_THROW(make_scheme("1d", {.dp = 0}), UsageError);
}

}  // namespace
}  // namespace tplab
