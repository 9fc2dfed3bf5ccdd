#include "faulty_comm.hpp"

#include "comm/fault_injection.hpp"

namespace tplab::verify {

FaultyComm::FaultyComm(Comm& inner, Fault fault)
    : ForwardingComm(inner), shared_(std::make_shared<Shared>(Shared{std::move(fault), {}, {}})) {}

FaultyComm::FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<Shared> shared)
    : ForwardingComm(std::move(owned)), shared_(std::move(shared)) {}

std::unique_ptr<Comm> FaultyComm::split(int color, int key, const std::string& group) {
  return std::unique_ptr<Comm>(new FaultyComm(inner().split(color, key, group), shared_));
}

int FaultyComm::size() const {
  const Fault& f = shared_->fault;
  if (f.action == Fault::Action::size_two && group() == f.group) return 2;
  return ForwardingComm::size();
}

bool FaultyComm::is_the_fault(Collective collective) {
  const Fault& f = shared_->fault;
  if (collective != f.collective || (!f.group.empty() && f.group != group())) return false;
  return shared_->seen[f.group]++ == f.index;
}

std::unique_ptr<DeviceInterval> FaultyComm::run(const CollectiveCall& call) {
  const Fault& f = shared_->fault;
  if (f.action == Fault::Action::max_as_sum) {
    const bool hit = call.collective == Collective::all_reduce && call.op == ReduceOp::max &&
                     (f.group.empty() || f.group == group());
    inner().run(hit ? CollectiveCall{call.collective, call.in, call.out, ReduceOp::sum, call.root}
                    : call);
  } else if (f.action == Fault::Action::size_two) {
    inner().run(call);
  } else if (!is_the_fault(call.collective)) {
    inner().run(call);
  } else if (f.action == Fault::Action::repeat) {
    inner().run(call);
    inner().run(call);
  } else if (f.action == Fault::Action::poison) {
    inner().run(call);
    if (rank() == f.rank) write_first_element(call.out, quiet_nan_bytes(call.out.dtype()));
  } else if (f.action == Fault::Action::as_max) {
    inner().run({call.collective, call.in, call.out, ReduceOp::max, call.root});
  } else if (f.action == Fault::Action::hoard) {
    inner().run(call);
    shared_->hoarded = call.out;
  } else if (f.action == Fault::Action::next_root) {
    inner().run({call.collective, call.in, call.out, call.op, (call.root + 1) % size()});
  }
  return nullptr;
}

std::unique_ptr<PendingTransport> FaultyComm::start(const CollectiveCall& call) {
  run(call);
  return nullptr;
}

}  // namespace tplab::verify
