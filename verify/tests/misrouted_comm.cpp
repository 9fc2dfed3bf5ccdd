/// @file
/// MisroutedComm: forwarding, and the one reduce-scatter sent to the wrong group.
#include "misrouted_comm.hpp"

namespace tplab::verify {

MisroutedComm::MisroutedComm(Comm& inner, std::shared_ptr<Misrouting> plan)
    : Comm(inner.group(), inner.shared_counters(), Recording::by_inner),
      inner_(&inner),
      plan_(std::move(plan)) {}

MisroutedComm::MisroutedComm(std::unique_ptr<Comm> owned, std::shared_ptr<Misrouting> plan)
    : Comm(owned->group(), owned->shared_counters(), Recording::by_inner),
      owned_(std::move(owned)),
      inner_(owned_.get()),
      plan_(std::move(plan)) {}

std::unique_ptr<Comm> MisroutedComm::split(int color, int key, const std::string& group) {
  std::unique_ptr<Comm> real = inner_->split(color, key, group);
  plan_->groups[group] = real.get();
  return std::make_unique<MisroutedComm>(std::move(real), plan_);
}

void MisroutedComm::do_reduce_scatter(const Tensor& full, Tensor& shard) {
  const int index = plan_->reduce_scatters++;
  Comm* target = inner_;
  if (index == plan_->misrouted) target = plan_->groups.at(plan_->wrong_group.at(group()));
  target->reduce_scatter(full, shard);
}

}  // namespace tplab::verify
