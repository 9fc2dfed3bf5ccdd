#include "comm/tracing_comm.hpp"

#include "core/error.hpp"

namespace tplab {
namespace {

constexpr int kHost = static_cast<int>(TraceTrack::host);
/// Its host slice (a blocking call, or a started one's wait), its lane's slice and the two events
/// of its flow, kept or dropped together (a started one's start slice is kept before).
constexpr std::size_t kEventsOfACollective = 4;

int lane_track(int lane) {
  return static_cast<int>(TraceTrack::collectives) + lane;
}

/// A started collective that puts itself on the timeline when it is waited for: its wait on the
/// host track, its whole span on its lane, and the arrow from the one to the other.
class TracedPending final : public PendingTransport {
 public:
  TracedPending(std::unique_ptr<PendingTransport> inner, std::shared_ptr<TraceRecorder> trace,
                std::string name, nlohmann::json args, int lane, double begin_us)
      : inner_(std::move(inner)),
        trace_(std::move(trace)),
        name_(std::move(name)),
        args_(std::move(args)),
        lane_(lane),
        begin_us_(begin_us) {}

  void wait() override {
    const double waiting = trace_->now_us();
    try {
      if (inner_) inner_->wait();
    } catch (...) {
      trace_->release_lane(lane_);
      throw;
    }
    const double done = trace_->now_us();
    trace_->release_lane(lane_);
    if (!trace_->reserve(kEventsOfACollective)) return;
    trace_->slice(kHost, "wait " + name_, "comm-blocked", waiting, done,
                  {{"collective", name_}, {"group", args_["group"]}});
    trace_->slice(lane_track(lane_), name_, "collective", begin_us_, done, args_);
    trace_->flow(lane_track(lane_), begin_us_, kHost, waiting, name_);
  }

 private:
  std::unique_ptr<PendingTransport> inner_;
  std::shared_ptr<TraceRecorder> trace_;
  std::string name_;
  nlohmann::json args_;
  int lane_;
  double begin_us_;
};

}  // namespace

TracingComm::TracingComm(std::unique_ptr<Comm> inner, std::shared_ptr<TraceRecorder> trace)
    : ForwardingComm(std::move(inner)), trace_(std::move(trace)) {
  check(trace_ != nullptr, "TracingComm needs a trace");
  world_ranks_ = ForwardingComm::world_ranks();
}

nlohmann::json TracingComm::describe(const CollectiveCall& call) const {
  const Tensor& logical = call.logical();
  nlohmann::json args = {{"collective", collective_name(call.collective)},
                         {"group", group()},
                         {"group_size", size()},
                         {"ranks", world_ranks_},
                         {"bytes", logical.bytes()},
                         {"elements", logical.numel()},
                         {"dtype", dtype_name(logical.dtype())}};
  if (reduces(call.collective)) args["op"] = reduce_op_name(call.op);
  const bool transfer = call.collective == Collective::send || call.collective == Collective::recv;
  if (rooted(call.collective)) args[transfer ? "peer" : "root"] = call.root;
  return args;
}

void TracingComm::barrier() {
  const TraceScope scope(trace_.get(), "barrier", "barrier", {{"group", group()}});
  ForwardingComm::barrier();
}

std::unique_ptr<Comm> TracingComm::split(int color, int key, const std::string& group) {
  return std::make_unique<TracingComm>(inner().split(color, key, group), trace_);
}

std::unique_ptr<DeviceInterval> TracingComm::run(const CollectiveCall& call) {
  if (size() == 1) return inner().run(call);  // nothing crosses a link
  const std::string name(collective_name(call.collective));
  const int lane = trace_->acquire_lane();
  const double begin = trace_->now_us();
  std::unique_ptr<DeviceInterval> on_device;
  try {
    on_device = inner().run(call);
  } catch (...) {
    trace_->release_lane(lane);
    throw;
  }
  const double end = trace_->now_us();
  trace_->release_lane(lane);
  if (!trace_->reserve(kEventsOfACollective)) return on_device;
  nlohmann::json args = describe(call);
  trace_->slice(kHost, name, "comm-blocked", begin, end,
                {{"collective", name}, {"group", group()}});
  trace_->slice(lane_track(lane), name, "collective", begin, end, args);
  trace_->flow(lane_track(lane), begin, kHost, begin, name);
  return on_device;
}

std::unique_ptr<PendingTransport> TracingComm::start(const CollectiveCall& call) {
  if (size() == 1) return inner().start(call);
  const std::string name(collective_name(call.collective));
  const int lane = trace_->acquire_lane();
  const double begin = trace_->now_us();
  std::unique_ptr<PendingTransport> pending;
  try {
    pending = inner().start(call);
  } catch (...) {
    trace_->release_lane(lane);
    throw;
  }
  const double started = trace_->now_us();
  nlohmann::json args = describe(call);
  args["started"] = true;
  if (!pending) {
    // Completed as it was started (the transport has no non-blocking form): no time in flight.
    trace_->release_lane(lane);
    if (trace_->reserve(kEventsOfACollective)) {
      trace_->slice(kHost, "start " + name, "comm-blocked", begin, started,
                    {{"collective", name}, {"group", group()}});
      trace_->slice(lane_track(lane), name, "collective", begin, started, args);
      trace_->flow(lane_track(lane), begin, kHost, begin, name);
    }
    return nullptr;
  }
  trace_->slice(kHost, "start " + name, "comm-blocked", begin, started,
                {{"collective", name}, {"group", group()}});
  return std::make_unique<TracedPending>(std::move(pending), trace_, name, std::move(args), lane,
                                         begin);
}

}  // namespace tplab
