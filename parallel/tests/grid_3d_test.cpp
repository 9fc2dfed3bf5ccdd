/// @file
/// Grid3D at 1, 8 and 27 ranks: every group holds the ranks its header promises, in its order.
#include "grid/grid_3d.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

TEST(CubeCoordinates, RankIsIPlusQTimesJPlusQTimesK) {
  EXPECT_EQ(cube_side(1), 1);
  EXPECT_EQ(cube_side(8), 2);
  EXPECT_EQ(cube_side(27), 3);
  EXPECT_EQ(cube_side(4), 0);
  EXPECT_EQ(cube_side(9), 0);
  for (int q : {1, 2, 3}) {
    for (int r = 0; r < q * q * q; ++r) {
      const auto [i, j, k] = cube_coordinates(r, q);
      EXPECT_EQ(i + q * (j + q * k), r);
      EXPECT_TRUE(i < q && j < q && k < q);
    }
  }
}

class Grid3DTest : public testing::Test {
 protected:
  Grid3DTest() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}

  void SetUp() override {
    if (cube_side(world->size()) == 0) GTEST_SKIP() << "3D needs a cube number of ranks";
  }

  /// The world ranks of `group`'s members, in the group's order.
  std::vector<double> members(Comm& group) {
    Tensor mine = cpu.empty({1}, DType::f64);
    cpu.fill(mine, world->rank());
    Tensor all = cpu.empty({group.size()}, DType::f64);
    group.all_gather(mine, all);
    return {all.data_as<double>(), all.data_as<double>() + group.size()};
  }

  /// The world ranks at the coordinates `at(position)` for position 0, 1, ... count-1.
  static std::vector<double> ranks_at(int q, int count,
                                      const std::function<CubeCoordinates(int)>& at) {
    std::vector<double> ranks;
    for (int position = 0; position < count; ++position) {
      const auto [i, j, k] = at(position);
      ranks.push_back(i + q * (j + q * k));
    }
    return ranks;
  }

  CpuDevice cpu;
  std::unique_ptr<Comm> world;
};

TEST_F(Grid3DTest, EveryGroupHoldsItsRanksInOrder) {
  const Grid3D grid = Grid3D::build(*world);
  const int q = grid.q;
  const auto [i, j, k] = grid.coordinates;
  EXPECT_EQ(grid.coordinates, cube_coordinates(world->rank(), q));
  EXPECT_EQ(members(*grid.input), ranks_at(q, q, [&](int p) { return CubeCoordinates{p, j, k}; }));
  EXPECT_EQ(members(*grid.weight), ranks_at(q, q, [&](int p) { return CubeCoordinates{i, p, k}; }));
  EXPECT_EQ(members(*grid.output), ranks_at(q, q, [&](int p) { return CubeCoordinates{i, j, p}; }));
  // the planes in token order: weight coordinate major
  EXPECT_EQ(members(*grid.input_weight), ranks_at(q, q * q, [&](int p) {
              return CubeCoordinates{p % q, p / q, k};
            }));
  EXPECT_EQ(members(*grid.output_weight), ranks_at(q, q * q, [&](int p) {
              return CubeCoordinates{i, p / q, p % q};
            }));
}

TEST_F(Grid3DTest, GroupsAreNamedAndReachableByAxis) {
  const Grid3D grid = Grid3D::build(*world);
  EXPECT_EQ(grid.axis(Axis3D::input).group(), "input");
  EXPECT_EQ(grid.axis(Axis3D::weight).group(), "weight");
  EXPECT_EQ(grid.axis(Axis3D::output).group(), "output");
  EXPECT_EQ(grid.plane_with_weight(Axis3D::input).group(), "input_weight");
  EXPECT_EQ(grid.plane_with_weight(Axis3D::output).group(), "output_weight");
}

}  // namespace
}  // namespace tplab
