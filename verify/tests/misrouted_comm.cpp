/// @file
/// MisroutedComm: forwarding, and the one reduce-scatter sent to the wrong group.
#include "misrouted_comm.hpp"

namespace tplab::verify {

MisroutedComm::MisroutedComm(Comm& inner, std::shared_ptr<Misrouting> plan)
    : ForwardingComm(inner), plan_(std::move(plan)) {}

MisroutedComm::MisroutedComm(std::unique_ptr<Comm> owned, std::shared_ptr<Misrouting> plan)
    : ForwardingComm(std::move(owned)), plan_(std::move(plan)) {}

std::unique_ptr<Comm> MisroutedComm::split(int color, int key, const std::string& group) {
  std::unique_ptr<Comm> real = inner().split(color, key, group);
  plan_->groups[group] = real.get();
  return std::make_unique<MisroutedComm>(std::move(real), plan_);
}

std::unique_ptr<DeviceInterval> MisroutedComm::run(const CollectiveCall& call) {
  if (call.collective != Collective::reduce_scatter) return inner().run(call);
  const int index = plan_->reduce_scatters++;
  Comm* target = &inner();
  if (index == plan_->misrouted) target = plan_->groups.at(plan_->wrong_group.at(group()));
  return target->run(call);
}

std::unique_ptr<PendingTransport> MisroutedComm::start(const CollectiveCall& call) {
  run(call);
  return nullptr;
}

}  // namespace tplab::verify
