// MpiGroup at 1..4 ranks: the world's rank and size, groups from split, a moved group that keeps
// its communicator, and mpi_check's error.
#include "comm/mpi_group.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "comm/mpi_call.hpp"
#include "core/error.hpp"

namespace tplab {
namespace {

int sum_over(const MpiGroup& group, int value) {
  int sum = 0;
  mpi_check(MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, group.handle()), "MPI_Allreduce");
  return sum;
}

TEST(MpiGroupTest, WorldIsEveryRank) {
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MpiGroup world = MpiGroup::world();
  EXPECT_EQ(world.rank(), rank);
  EXPECT_EQ(world.size(), size);
  world.barrier();
  EXPECT_EQ(sum_over(world, 1), size);
}

TEST(MpiGroupTest, SplitGroupsTheRanksOfOneColorInKeyOrder) {
  const MpiGroup world = MpiGroup::world();
  const int p = world.size(), r = world.rank();
  const MpiGroup parity = world.split(r % 2, p - r);  // key reversed: the highest rank is 0
  const int members = r % 2 == 0 ? (p + 1) / 2 : p / 2;
  EXPECT_EQ(parity.size(), members);
  EXPECT_EQ(parity.rank(), members - 1 - r / 2);
  parity.barrier();
  int expected = 0;
  for (int q = r % 2; q < p; q += 2) expected += q;
  EXPECT_EQ(sum_over(parity, r), expected);
}

TEST(MpiGroupTest, AMovedGroupKeepsItsCommunicator) {
  const MpiGroup world = MpiGroup::world();
  std::optional<MpiGroup> first(world.split(0, world.rank()));
  const MpiGroup second(std::move(*first));
  EXPECT_EQ(first->handle(), MPI_COMM_NULL);
  first.reset();  // must not free the communicator that second now holds
  EXPECT_EQ(second.size(), world.size());
  EXPECT_EQ(sum_over(second, 1), world.size());
}

TEST(MpiGroupTest, MpiCheckThrowsWithTheCallAndMpisMessage) {
  EXPECT_NO_THROW(mpi_check(MPI_SUCCESS, "MPI_Barrier"));
  try {
    mpi_check(MPI_ERR_COMM, "MPI_Barrier");
    FAIL() << "no exception";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_Barrier failed: "), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tplab
