/// @file
/// Which groups leave a node: ranks fill nodes in order, ranks_per_node at a time.
#pragma once

#include <string>

#include "rank_cost.hpp"

namespace tplab::model {

/// The node of world rank `rank`: consecutive ranks fill a node (rank r on node
/// r / ranks_per_node), as mpiexec places them by default and as NCCL jobs are usually launched.
int node_of(int rank, int ranks_per_node);

/// The nodes `world_size` ranks fill, the last one perhaps in part.
int node_count(int world_size, int ranks_per_node);

/// Where the groups of one name (every row of a 2D mesh, say) sit on the nodes.
struct GroupPlacement {
  std::string name;             ///< the groups' name, as the grid calls them ("row", "depth")
  int size = 1;                 ///< ranks per group
  int groups = 0;               ///< groups of this name in the world
  int groups_across_nodes = 0;  ///< how many of them hold ranks of more than one node
  int fewest_nodes = 1;         ///< the fewest nodes one group holds ranks of
  int most_nodes = 1;           ///< the most nodes one group holds ranks of

  /// Whether some group of this name spans nodes, so that its collectives cross the inter-node
  /// link: they all run together, and a collective is as slow as its slowest group.
  bool crosses_nodes() const { return groups_across_nodes > 0; }
};

/// Where the groups of `layout` sit when `world_size` ranks fill nodes of `ranks_per_node`.
GroupPlacement place_groups(const GroupLayout& layout, int world_size, int ranks_per_node);

}  // namespace tplab::model
