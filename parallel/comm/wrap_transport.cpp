#include "comm/wrap_transport.hpp"

#include "comm/counting_comm.hpp"
#include "comm/fault_injecting_comm.hpp"
#include "comm/fault_injection.hpp"
#include "comm/tracing_comm.hpp"

namespace tplab {

std::unique_ptr<Comm> wrap_transport(std::unique_ptr<Comm> transport,
                                     std::shared_ptr<CommCounters> counters,
                                     std::shared_ptr<TraceRecorder> trace) {
  std::unique_ptr<Comm> chain =
      std::make_unique<CountingComm>(std::move(transport), std::move(counters));
  if (trace) chain = std::make_unique<TracingComm>(std::move(chain), std::move(trace));
  if (!fault_planned_here()) return chain;
  return std::make_unique<FaultInjectingComm>(std::move(chain));
}

}  // namespace tplab
