#include "comm/wrap_transport.hpp"

#include "comm/counting_comm.hpp"
#include "comm/fault_injecting_comm.hpp"
#include "comm/fault_injection.hpp"

namespace tplab {

std::unique_ptr<Comm> wrap_transport(std::unique_ptr<Comm> transport,
                                     std::shared_ptr<CommCounters> counters) {
  auto counted = std::make_unique<CountingComm>(std::move(transport), std::move(counters));
  if (!fault_planned_here()) return counted;
  return std::make_unique<FaultInjectingComm>(std::move(counted));
}

}  // namespace tplab
