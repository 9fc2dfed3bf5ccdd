/// @file
/// CountingComm: records every collective of the communicator it wraps.
#pragma once

#include <memory>
#include <string>

#include "comm/forwarding_comm.hpp"

namespace tplab {

/// Records every collective the wrapped communicator runs in the rank's CommCounters, and every
/// send and recv: its reduction and root (a transfer's peer) where it has them, its size and the
/// time it took. A blocking collective's time is the host's around the call, or the interval the
/// transport measured on its device (NcclComm), read when the counters are. A started one is
/// counted once, when it completes, with the host's time from its start to its completion, and the
/// time the caller spent blocked in it (starting it and waiting for it) as its exposed time. A
/// group of one rank moves nothing over a link: its collectives run but are not counted.
class CountingComm final : public ForwardingComm {
 public:
  /// Counts `inner`'s collectives into `counters`.
  CountingComm(std::unique_ptr<Comm> inner, std::shared_ptr<CommCounters> counters);

  CommCounters& counters() override { return *counters_; }
  /// The split group of the wrapped communicator, counted into the same counters.
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;

 private:
  std::shared_ptr<CommCounters> counters_;
};

}  // namespace tplab
