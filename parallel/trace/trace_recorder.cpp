#include "trace/trace_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace tplab {
namespace {

nlohmann::json metadata(int pid, int tid, const char* what, const std::string& name) {
  return {{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", what}, {"args", {{"name", name}}}};
}

}  // namespace

TraceRecorder::TraceRecorder(std::size_t capacity)
    : origin_(std::chrono::steady_clock::now()), capacity_(capacity) {
  check(capacity_ > 0, "a trace needs room for at least one event");
}

double TraceRecorder::now_us() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - origin_)
      .count();
}

void TraceRecorder::restart() {
  origin_ = std::chrono::steady_clock::now();
  events_.clear();
  deferred_.clear();
  dropped_ = 0;
}

bool TraceRecorder::room() {
  if (size() < capacity_) return true;
  ++dropped_;
  return false;
}

void TraceRecorder::slice(int track, std::string name, std::string category, double begin_us,
                          double end_us, nlohmann::json args) {
  if (!room()) return;
  events_.push_back({{"ph", "X"},
                     {"tid", track},
                     {"name", std::move(name)},
                     {"cat", std::move(category)},
                     {"ts", begin_us},
                     {"dur", std::max(0.0, end_us - begin_us)},
                     {"args", std::move(args)}});
}

void TraceRecorder::deferred_slice(int track, std::string name, std::string category,
                                   std::unique_ptr<DeferredSpan> span, nlohmann::json args) {
  if (!room()) return;
  device_used_ = device_used_ || track == static_cast<int>(TraceTrack::device);
  deferred_.push_back(
      {track, std::move(name), std::move(category), std::move(span), std::move(args)});
}

void TraceRecorder::flow(int from_track, double from_us, int to_track, double to_us,
                         std::string name) {
  if (size() + 2 > capacity_) {
    dropped_ += 2;
    return;
  }
  const std::uint64_t id = next_flow_++;
  events_.push_back({{"ph", "s"},
                     {"tid", from_track},
                     {"id", id},
                     {"ts", from_us},
                     {"name", name},
                     {"cat", "flow"}});
  events_.push_back({{"ph", "f"},
                     {"bp", "e"},
                     {"tid", to_track},
                     {"id", id},
                     {"ts", to_us},
                     {"name", std::move(name)},
                     {"cat", "flow"}});
}

bool TraceRecorder::reserve(std::size_t events) {
  if (size() + events <= capacity_) return true;
  dropped_ += events;
  return false;
}

int TraceRecorder::acquire_lane() {
  const auto free = std::find(lanes_.begin(), lanes_.end(), false);
  const int lane = static_cast<int>(free - lanes_.begin());
  if (free == lanes_.end()) {
    lanes_.push_back(true);
  } else {
    *free = true;
  }
  lanes_used_ = std::max(lanes_used_, lane + 1);
  return lane;
}

void TraceRecorder::release_lane(int lane) {
  check(lane >= 0 && lane < static_cast<int>(lanes_.size()) && lanes_[lane],
        "release_lane: a lane that was not held");
  lanes_[lane] = false;
}

nlohmann::json TraceRecorder::events(int pid, const std::string& process_name) {
  nlohmann::json out = nlohmann::json::array();
  out.push_back(metadata(pid, static_cast<int>(TraceTrack::host), "process_name", process_name));
  out.push_back(
      {{"ph", "M"}, {"pid", pid}, {"name", "process_sort_index"}, {"args", {{"sort_index", pid}}}});
  out.push_back(metadata(pid, static_cast<int>(TraceTrack::host), "thread_name",
                         "host: steps, operations, blocked in collectives"));
  if (device_used_) {
    out.push_back(metadata(pid, static_cast<int>(TraceTrack::device), "thread_name",
                           "device stream: operations (CUDA events)"));
  }
  for (int lane = 0; lane < lanes_used_; ++lane) {
    out.push_back(metadata(pid, static_cast<int>(TraceTrack::collectives) + lane, "thread_name",
                           lane == 0 ? std::string("collectives in flight")
                                     : fmt::format("collectives in flight {}", lane)));
  }
  for (nlohmann::json e : events_) {
    e["pid"] = pid;
    // Flow ids are the whole file's: each rank's own, above its rank.
    if (e.contains("id"))
      e["id"] = (static_cast<std::uint64_t>(pid) << 32) + e["id"].get<std::uint64_t>();
    out.push_back(std::move(e));
  }
  for (Deferred& d : deferred_) {
    const auto [begin, end] = d.span->microseconds();
    out.push_back({{"ph", "X"},
                   {"pid", pid},
                   {"tid", d.track},
                   {"name", d.name},
                   {"cat", d.category},
                   {"ts", begin},
                   {"dur", std::max(0.0, end - begin)},
                   {"args", d.args}});
  }
  return out;
}

TraceScope::TraceScope(TraceRecorder* trace, std::string name, std::string category,
                       nlohmann::json args)
    : trace_(trace) {
  if (trace_ == nullptr) return;
  name_ = std::move(name);
  category_ = std::move(category);
  args_ = std::move(args);
  begin_us_ = trace_->now_us();
}

TraceScope::~TraceScope() {
  close();
}

void TraceScope::close() {
  if (trace_ == nullptr) return;
  trace_->slice(static_cast<int>(TraceTrack::host), std::move(name_), std::move(category_),
                begin_us_, trace_->now_us(), std::move(args_));
  trace_ = nullptr;
}

}  // namespace tplab
