#include "faulty_comm.hpp"

namespace tplab::verify {

FaultyComm::FaultyComm(Comm& inner, Fault fault)
    : ForwardingComm(inner), shared_(std::make_shared<Shared>(Shared{std::move(fault), {}})) {}

FaultyComm::FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared)
    : ForwardingComm(std::move(owned)), shared_(std::move(shared)) {}

std::unique_ptr<Comm> FaultyComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new FaultyComm(inner().split(color, key, group), shared_));
}

int FaultyComm::runs(Collective collective) {
  const Fault& f = shared_->fault;
  if (collective != f.collective || (!f.group.empty() && f.group != group())) return 1;
  if (shared_->seen[f.group]++ != f.index) return 1;
  return f.action == Fault::Action::drop ? 0 : 2;
}

std::unique_ptr<DeviceInterval> FaultyComm::run(const CollectiveCall& call) {
  for (int n = runs(call.collective); n > 0; --n) inner().run(call);
  return nullptr;
}

std::unique_ptr<PendingTransport> FaultyComm::start(const CollectiveCall& call) {
  run(call);
  return nullptr;
}

}  // namespace tplab::verify
