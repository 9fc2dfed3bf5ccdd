#include "scheme/execution_policy.hpp"

namespace tplab {

CommRequest ExecutionPolicy::all_reduce(Comm& group, Tensor& x) const {
  if (overlap) return group.start_all_reduce(x);
  group.all_reduce(x);
  return {};
}

CommRequest ExecutionPolicy::all_gather(Comm& group, const Tensor& shard, Tensor& full) const {
  if (overlap) return group.start_all_gather(shard, full);
  group.all_gather(shard, full);
  return {};
}

CommRequest ExecutionPolicy::reduce_scatter(Comm& group, const Tensor& full, Tensor& shard) const {
  if (overlap) return group.start_reduce_scatter(full, shard);
  group.reduce_scatter(full, shard);
  return {};
}

CommRequest ExecutionPolicy::broadcast(Comm& group, Tensor& x, int root) const {
  if (overlap) return group.start_broadcast(x, root);
  group.broadcast(x, root);
  return {};
}

}  // namespace tplab
