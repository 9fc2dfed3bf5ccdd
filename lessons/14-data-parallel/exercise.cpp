// Lesson 14 exercise: the D x t mesh of data parallelism around 1D tensor parallelism, and the
// DP average of the gradients. Fill in the TODO blocks, then run ./tplab lesson check 14.
// README.md explains the idea; ./tplab lesson hint 14 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::data_parallel {

MeshGroups build_mesh_groups(Comm& world, int t) {
  // TODO: rank = dp_index x t + tp_rank. Fill a MeshGroups: dp_index and tp_rank from
  //       world.rank(), then the two groups with world.split(color, key, name):
  //         tp: the t ranks of this replica (the same dp_index), ordered by tp_rank, "tp"
  //         dp: the D ranks with the same tp_rank, ordered by dp_index, "dp"
  //       Every rank calls split, once per group, in the same order.
  (void)world;
  (void)t;
  TPLAB_TODO();
}

void average_gradients(Device& device, MeshGroups& mesh, TensorMap& gradients) {
  // TODO: each shard of `gradients` is this replica's gradient of the mean loss over its own
  //       b/D sequences. Make it the gradient of the mean over the global batch, in place:
  //       which group holds the other replicas of the same shard, and what do you divide by?
  (void)device;
  (void)mesh;
  (void)gradients;
  TPLAB_TODO();
}

void average_gradients_bucketed(Device& device, MeshGroups& mesh, TensorMap& gradients) {
  // TODO: the same average with one all-reduce: copy every shard into one flat tensor (a
  //       view of its elements: bucket.slice_rows(offset, n).reshaped(grad.extents())),
  //       average the bucket, and copy each shard back out (device.copy).
  (void)device;
  (void)mesh;
  (void)gradients;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::data_parallel
