// Lesson 14, the answer: the D x t mesh split from the world in two calls, and the DP average
// of every gradient shard, one all-reduce per gradient and then one bucket for all of them.
#include "lesson.hpp"

namespace tplab::lessons::data_parallel {

// The library splits its mesh the same way (tplab verify --dp, tplab train --dp):
// parallel/mesh/mesh_layout.cpp, split_mesh.
MeshGroups build_mesh_groups(Comm& world, int t) {
  MeshGroups mesh;
  mesh.dp_index = world.rank() / t;  // rank = dp_index x t + tp_rank
  mesh.tp_rank = world.rank() % t;
  // A group is the ranks that differ only along its own axis: its colour is the other
  // coordinate, its key its own.
  mesh.tp = world.split(mesh.dp_index, mesh.tp_rank, "tp");
  mesh.dp = world.split(mesh.tp_rank, mesh.dp_index, "dp");
  return mesh;
}

// The library's gradient reduction over the replicas, per tensor or in one flat bucket:
// parallel/mesh/gradient_reduction.cpp, reduce_over_replicas (train averages, as here; verify
// sums, its loss being one sum over all the tokens).
void average_gradients(Device& device, MeshGroups& mesh, TensorMap& gradients) {
  const double replicas = mesh.dp->size();
  for (auto& [name, grad] : gradients) {
    mesh.dp->all_reduce(grad);           // the sum of the D replicas' means ...
    device.scale(grad, 1.0 / replicas);  // ... divided by D: the mean over the global batch
  }
}

void average_gradients_bucketed(Device& device, MeshGroups& mesh, TensorMap& gradients) {
  std::int64_t elements = 0;
  for (const auto& [name, grad] : gradients) elements += grad.numel();
  Tensor bucket = device.empty({elements}, gradients.begin()->second.dtype());
  std::int64_t offset = 0;
  for (const auto& [name, grad] : gradients) {
    Tensor place = bucket.slice_rows(offset, grad.numel()).reshaped(grad.extents());
    device.copy(grad, place);
    offset += grad.numel();
  }
  mesh.dp->all_reduce(bucket);  // one call for every shard: one latency, not one per gradient
  device.scale(bucket, 1.0 / mesh.dp->size());
  offset = 0;
  for (auto& [name, grad] : gradients) {
    device.copy(bucket.slice_rows(offset, grad.numel()).reshaped(grad.extents()), grad);
    offset += grad.numel();
  }
}

}  // namespace tplab::lessons::data_parallel
