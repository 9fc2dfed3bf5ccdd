#include "comm/forwarding_comm.hpp"

#include "core/error.hpp"

namespace tplab {

ForwardingComm::ForwardingComm(std::unique_ptr<Comm> inner)
    : Comm(inner ? inner->group() : std::string()), owned_(std::move(inner)), inner_(owned_.get()) {
  check(inner_ != nullptr, "ForwardingComm needs a communicator to wrap");
}

ForwardingComm::ForwardingComm(Comm& inner) : Comm(inner.group()), inner_(&inner) {}

}  // namespace tplab
