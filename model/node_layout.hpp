/// @file
/// Which groups leave a node: ranks fill nodes in order, gpus_per_node at a time.
#pragma once

#include "rank_cost.hpp"

namespace tplab::model {

/// The node of world rank `rank`: consecutive ranks fill a node (rank r on node r / gpus),
/// as mpiexec places them by default and as NCCL jobs are usually launched.
int node_of(int rank, int gpus_per_node);

/// Whether some group of `layout` holds ranks of more than one node, so that its ring crosses
/// the inter-node link (a collective is as slow as its slowest group).
bool spans_nodes(const GroupLayout& layout, int world_size, int gpus_per_node);

}  // namespace tplab::model
