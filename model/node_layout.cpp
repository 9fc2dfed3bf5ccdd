/// @file
/// Which groups leave a node.
#include "node_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"

namespace tplab::model {

int node_of(int rank, int ranks_per_node) {
  check(ranks_per_node >= 1, "node_of: a node holds at least one rank");
  return rank / ranks_per_node;
}

int node_count(int world_size, int ranks_per_node) {
  check(ranks_per_node >= 1, "node_count: a node holds at least one rank");
  return world_size / ranks_per_node + (world_size % ranks_per_node != 0 ? 1 : 0);
}

GroupPlacement place_groups(const GroupLayout& layout, int world_size, int ranks_per_node) {
  struct Members {
    int ranks = 0;
    std::set<int> nodes;
  };
  std::map<int, Members> by_color;  // the groups, by the color the grid splits them with
  for (int r = 0; r < world_size; ++r) {
    Members& group = by_color[layout.color(r)];
    ++group.ranks;
    group.nodes.insert(node_of(r, ranks_per_node));
  }
  GroupPlacement placement;
  placement.name = layout.name;
  placement.size = layout.size;
  placement.groups = static_cast<int>(by_color.size());
  placement.fewest_nodes = world_size;
  placement.most_nodes = 0;
  for (const auto& [color, group] : by_color) {
    check(group.ranks == layout.size,
          fmt::format("the model's group '{}' of color {} holds {} ranks, not {}", layout.name,
                      color, group.ranks, layout.size));
    const int count = static_cast<int>(group.nodes.size());
    placement.groups_across_nodes += count > 1 ? 1 : 0;
    placement.fewest_nodes = std::min(placement.fewest_nodes, count);
    placement.most_nodes = std::max(placement.most_nodes, count);
  }
  return placement;
}

}  // namespace tplab::model
