#include "comm/counting_comm.hpp"

#include <algorithm>
#include <chrono>

#include "core/error.hpp"

namespace tplab {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// A point of the steady clock as seconds since its epoch, as InFlight keeps it.
double clock_seconds(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

/// What the counters record of one call, all but its time: its reduction only where it
/// reduces and its root only where it has one, so that the defaults of the others are not
/// taken for a sum or a root 0.
CountedCall counted(const CollectiveCall& call, const std::string& group, int group_size) {
  const Tensor& logical = call.logical();
  return {call.collective,
          reduces(call.collective) ? call.op : ReduceOp::sum,
          rooted(call.collective) ? call.root : kNoRoot,
          group,
          group_size,
          logical.numel(),
          static_cast<std::int64_t>(logical.bytes())};
}

/// A started collective that records itself when it completes: the whole span from its start,
/// and the part of it the caller was blocked (starting it, then waiting for it).
class CountedPending final : public PendingTransport {
 public:
  CountedPending(std::unique_ptr<PendingTransport> inner, std::shared_ptr<CommCounters> counters,
                 CountedCall call, Clock::time_point begin, double starting)
      : inner_(std::move(inner)),
        counters_(std::move(counters)),
        call_(std::move(call)),
        begin_(begin),
        starting_(starting) {}

  void wait() override {
    const auto waiting = Clock::now();
    const double started = clock_seconds(begin_) + starting_;
    counters_->record_in_flight({call_.collective, call_.group, started, clock_seconds(waiting)});
    if (inner_) inner_->wait();
    // One reading of the clock for both, so that the blocked part never exceeds the span it is
    // part of (two readings, or a rounding, could put it a few nanoseconds past).
    const auto done = Clock::now();
    // A transport that completed at once spent its whole time in starting it.
    const double span = inner_ ? std::chrono::duration<double>(done - begin_).count() : starting_;
    const double blocked = starting_ + std::chrono::duration<double>(done - waiting).count();
    counters_->record(call_, span, std::min(blocked, span));
  }

 private:
  std::unique_ptr<PendingTransport> inner_;
  std::shared_ptr<CommCounters> counters_;
  CountedCall call_;
  Clock::time_point begin_;
  double starting_;
};

}  // namespace

CountingComm::CountingComm(std::unique_ptr<Comm> inner, std::shared_ptr<CommCounters> counters)
    : ForwardingComm(std::move(inner)), counters_(std::move(counters)) {
  check(counters_ != nullptr, "CountingComm needs counters");
}

std::unique_ptr<Comm> CountingComm::split(int color, int key, const std::string& group) {
  return std::make_unique<CountingComm>(inner().split(color, key, group), counters_);
}

std::unique_ptr<DeviceInterval> CountingComm::run(const CollectiveCall& call) {
  if (size() == 1) return inner().run(call);  // nothing crosses a link
  const auto begin = Clock::now();
  std::unique_ptr<DeviceInterval> on_device = inner().run(call);
  const double seconds = seconds_since(begin);
  if (on_device) {
    counters_->record(counted(call, group(), size()), std::move(on_device));
  } else {
    counters_->record(counted(call, group(), size()), seconds, seconds);
  }
  return nullptr;
}

std::unique_ptr<PendingTransport> CountingComm::start(const CollectiveCall& call) {
  if (size() == 1) return inner().start(call);
  const auto begin = Clock::now();
  std::unique_ptr<PendingTransport> pending = inner().start(call);
  const double starting = seconds_since(begin);
  return std::make_unique<CountedPending>(std::move(pending), counters_,
                                          counted(call, group(), size()), begin, starting);
}

}  // namespace tplab
