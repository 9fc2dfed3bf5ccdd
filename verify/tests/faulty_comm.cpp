#include "faulty_comm.hpp"

namespace tplab::verify {

FaultyComm::FaultyComm(Comm& inner, Fault fault)
    : Comm(inner.group(), inner.shared_counters(), Recording::by_inner),
      inner_(&inner),
      shared_(std::make_shared<Shared>(Shared{std::move(fault), {}})) {}

FaultyComm::FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared)
    : Comm(owned->group(), owned->shared_counters(), Recording::by_inner),
      owned_(std::move(owned)),
      inner_(owned_.get()),
      shared_(std::move(shared)) {}

std::unique_ptr<Comm> FaultyComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new FaultyComm(inner_->split(color, key, group), shared_));
}

int FaultyComm::runs(Collective collective) {
  const Fault& f = shared_->fault;
  if (collective != f.collective || (!f.group.empty() && f.group != group())) return 1;
  if (shared_->seen[f.group]++ != f.index) return 1;
  return f.action == Fault::Action::drop ? 0 : 2;
}

void FaultyComm::do_all_reduce(Tensor& x, ReduceOp op) {
  for (int n = runs(Collective::all_reduce); n > 0; --n) inner_->all_reduce(x, op);
}

void FaultyComm::do_all_gather(const Tensor& shard, Tensor& full) {
  for (int n = runs(Collective::all_gather); n > 0; --n) inner_->all_gather(shard, full);
}

void FaultyComm::do_reduce_scatter(const Tensor& full, Tensor& shard) {
  for (int n = runs(Collective::reduce_scatter); n > 0; --n) inner_->reduce_scatter(full, shard);
}

void FaultyComm::do_broadcast(Tensor& x, int root) {
  for (int n = runs(Collective::broadcast); n > 0; --n) inner_->broadcast(x, root);
}

void FaultyComm::do_reduce(const Tensor& in, Tensor& out, int root) {
  for (int n = runs(Collective::reduce); n > 0; --n) inner_->reduce(in, out, root);
}

}  // namespace tplab::verify
