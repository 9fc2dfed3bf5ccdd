/// @file
/// Which groups leave a node.
#include "node_layout.hpp"

#include <unordered_map>

namespace tplab::model {

int node_of(int rank, int gpus_per_node) {
  return rank / gpus_per_node;
}

bool spans_nodes(const GroupLayout& layout, int world_size, int gpus_per_node) {
  std::unordered_map<int, int> node_of_group;  // group color -> node of its first rank
  for (int r = 0; r < world_size; ++r) {
    const auto [at, inserted] = node_of_group.emplace(layout.color(r), node_of(r, gpus_per_node));
    if (!inserted && at->second != node_of(r, gpus_per_node)) return true;
  }
  return false;
}

}  // namespace tplab::model
