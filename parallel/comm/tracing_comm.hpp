/// @file
/// TracingComm: puts every collective of the communicator it wraps on the rank's timeline.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/forwarding_comm.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab {

/// Records each collective in a TraceRecorder, as CountingComm counts it: a slice on a lane of
/// the collectives' tracks from its start to its completion, with its kind, group, the group's
/// world ranks and its bytes (a send's or recv's peer as "peer", a rank of the group); slices of
/// the host track for the time the caller was blocked in it (category "comm-blocked": the whole
/// call of a blocking collective; starting and waiting for a started one; a started one that its
/// transport completed at once, as the start alone); and a flow arrow from the collective to the
/// wait that completed it. A group of one rank moves nothing over a link: its collectives run
/// unrecorded, as they run uncounted. Barriers are recorded too, as category "barrier".
class TracingComm final : public ForwardingComm {
 public:
  /// Records `inner`'s collectives in `trace`.
  TracingComm(std::unique_ptr<Comm> inner, std::shared_ptr<TraceRecorder> trace);

  void barrier() override;
  /// The split group of the wrapped communicator, recorded in the same trace.
  std::unique_ptr<Comm> split(int color, int key, const std::string& group) override;
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override;
  std::unique_ptr<PendingTransport> start(const CollectiveCall& call) override;

 private:
  nlohmann::json describe(const CollectiveCall& call) const;

  std::shared_ptr<TraceRecorder> trace_;
  std::vector<int> world_ranks_;
};

}  // namespace tplab
