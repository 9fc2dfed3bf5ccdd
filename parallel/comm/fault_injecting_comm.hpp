/// @file
/// FaultInjectingComm: fails one collective on purpose, as TPLAB_INJECT_FAULT plans it.
#pragma once

#include <memory>
#include <string>

#include "comm/forwarding_comm.hpp"

namespace tplab {

/// Runs the plan of TPLAB_INJECT_FAULT (fault_injection.hpp) around every collective of the
/// communicator it wraps: before the transport it may throw, exit or kill the process; after
/// it (for a started collective, when it completes) it may put a NaN or noise into the result.
/// wrap_transport() puts it in the chain only on the rank the plan names, outside the
/// CountingComm, so that the counters time the transport alone.
class FaultInjectingComm final : public ForwardingComm {
 public:
  /// Injects the armed plan into `inner`'s collectives.
  explicit FaultInjectingComm(std::unique_ptr<Comm> inner);

  /// The split group of the wrapped communicator, under the same plan.
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;
};

}  // namespace tplab
