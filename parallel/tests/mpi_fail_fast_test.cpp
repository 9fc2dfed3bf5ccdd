// A test that fails on purpose, on rank 1 alone, just before a collective that every other
// rank enters. mpi_fail_fast.sh runs it and checks that the whole job ends at once, naming
// rank 1 and the test, rather than leaving the other ranks waiting until CTest's timeout.
#include <gtest/gtest.h>
#include <mpi.h>

TEST(FailFast, RankOneFailsBeforeABarrierTheOthersEnter) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // A communicator of the test's own: rank 1 going on to main()'s MPI_Finalize must not let
  // the others' barrier complete.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  ASSERT_NE(rank, 1) << "rank 1 fails on purpose";
  MPI_Barrier(comm);
  MPI_Comm_free(&comm);
}
