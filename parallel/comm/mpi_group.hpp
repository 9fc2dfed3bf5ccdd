/// @file
/// MpiGroup: one MPI communicator with its rank and size, freed when it was split off.
#pragma once

#include <mpi.h>

#include <vector>

namespace tplab {

/// An MPI communicator and this rank's place in it: what MpiComm and DeviceStagedComm share.
/// A group made by split() owns its communicator and frees it when destroyed; world() does not
/// (MPI frees MPI_COMM_WORLD). Move-only, so that a communicator is freed once.
class MpiGroup {
 public:
  /// All ranks of MPI_COMM_WORLD.
  static MpiGroup world();
  /// Takes over `other`'s communicator; `other` is left holding none.
  MpiGroup(MpiGroup&& other) noexcept;
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;
  MpiGroup& operator=(MpiGroup&&) = delete;
  ~MpiGroup();

  /// This rank's index in the group, 0..size()-1.
  int rank() const { return rank_; }
  /// Number of ranks in the group.
  int size() const { return size_; }
  /// The MPI communicator, for MPI calls.
  MPI_Comm handle() const { return comm_; }
  /// The MPI_COMM_WORLD rank of each of the group's ranks, in the group's order (no
  /// communication: MPI_Group_translate_ranks).
  std::vector<int> world_ranks() const;
  /// Returns once every rank of the group has called it.
  void barrier() const;
  /// The ranks that pass the same `color`, ordered by `key` (MPI_Comm_split); collective over
  /// the group.
  MpiGroup split(int color, int key) const;

 private:
  MpiGroup(MPI_Comm comm, bool owned);

  MPI_Comm comm_;
  bool owned_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace tplab
