#include "comm/mpi_group.hpp"

#include <utility>

#include "comm/mpi_call.hpp"

namespace tplab {

MpiGroup MpiGroup::world() {
  return MpiGroup(MPI_COMM_WORLD, false);
}

MpiGroup::MpiGroup(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiGroup::MpiGroup(MpiGroup&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      owned_(std::exchange(other.owned_, false)),
      rank_(other.rank_),
      size_(other.size_) {}

MpiGroup::~MpiGroup() {
  if (owned_) MPI_Comm_free(&comm_);
}

std::vector<int> MpiGroup::world_ranks() const {
  MPI_Group mine = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  mpi_check(MPI_Comm_group(comm_, &mine), "MPI_Comm_group");
  mpi_check(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
  std::vector<int> ranks(static_cast<std::size_t>(size_)), in_world(ranks.size());
  for (int r = 0; r < size_; ++r) ranks[static_cast<std::size_t>(r)] = r;
  mpi_check(MPI_Group_translate_ranks(mine, size_, ranks.data(), world, in_world.data()),
            "MPI_Group_translate_ranks");
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  return in_world;
}

void MpiGroup::barrier() const {
  mpi_check(MPI_Barrier(comm_), "MPI_Barrier");
}

MpiGroup MpiGroup::split(int color, int key) const {
  MPI_Comm sub = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split(comm_, color, key, &sub), "MPI_Comm_split");
  return MpiGroup(sub, true);
}

}  // namespace tplab
