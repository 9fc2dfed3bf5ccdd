#include "faulty_comm.hpp"

namespace tplab::verify {

FaultyComm::FaultyComm(Comm& inner, Fault fault)
    : Comm(inner.group(), inner.shared_counters()),
      inner_(&inner),
      shared_(std::make_shared<Shared>(Shared{std::move(fault), {}})) {}

FaultyComm::FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared)
    : Comm(owned->group(), owned->shared_counters()),
      owned_(std::move(owned)),
      inner_(owned_.get()),
      shared_(std::move(shared)) {}

std::unique_ptr<Comm> FaultyComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new FaultyComm(inner_->split(color, key, group), shared_));
}

void FaultyComm::do_all_reduce(Tensor& x, ReduceOp op) {
  const Fault& f = shared_->fault;
  if (f.group.empty() || f.group == group()) {
    if (shared_->seen[f.group]++ == f.index) return;  // dropped: x keeps this rank's share
  }
  inner_->all_reduce(x, op);
}

}  // namespace tplab::verify
