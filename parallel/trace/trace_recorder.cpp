#include "trace/trace_recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "core/error.hpp"

namespace tplab {
namespace {

nlohmann::json metadata(int pid, int tid, const char* what, const std::string& name) {
  return {{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"name", what}, {"args", {{"name", name}}}};
}

}  // namespace

/// The JSON text reserved up front for the whole capacity: an event takes about 170 bytes, so
/// that the buffer never grows while steps run (the allocator maps a block that large on its
/// own, apart from the tensors' memory, and pages are touched only as the text fills them).
constexpr std::size_t kBytesPerEvent = 256;

std::uint64_t next_epoch() {
  static std::atomic<std::uint64_t> epochs{0};
  return ++epochs;
}

TraceRecorder::TraceRecorder(int pid, std::size_t capacity)
    : pid_(pid),
      epoch_(next_epoch()),
      origin_(std::chrono::steady_clock::now()),
      capacity_(capacity) {
  check(capacity_ > 0, "a trace needs room for at least one event");
  text_.reserve(capacity_ * kBytesPerEvent);
}

double TraceRecorder::now_us() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - origin_)
      .count();
}

void TraceRecorder::restart(std::chrono::steady_clock::time_point origin) {
  epoch_ = next_epoch();
  origin_ = origin;
  text_.clear();
  kept_ = 0;
  deferred_.clear();
  dropped_ = 0;
  next_flow_ = 1;
  lanes_.clear();
  lanes_used_ = 0;
  device_used_ = false;
}

bool TraceRecorder::room() {
  return reserve(1);
}

bool TraceRecorder::reserve(std::size_t events) {
  if (dropped_ == 0 && size() + events <= capacity_) return true;
  dropped_ += events;
  return false;
}

void TraceRecorder::append(const nlohmann::json& event) {
  text_ += event.dump();
  text_ += ',';
  ++kept_;
}

void TraceRecorder::slice(int track, std::string_view name, std::string_view category,
                          double begin_us, double end_us, const nlohmann::json& args) {
  if (!room()) return;
  append({{"ph", "X"},
          {"pid", pid_},
          {"tid", track},
          {"name", name},
          {"cat", category},
          {"ts", begin_us},
          {"dur", std::max(0.0, end_us - begin_us)},
          {"args", args}});
}

void TraceRecorder::deferred_slice(int track, std::string name, std::string category,
                                   std::unique_ptr<DeferredSpan> span, nlohmann::json args) {
  if (!room()) return;
  device_used_ = device_used_ || track == static_cast<int>(TraceTrack::device);
  deferred_.push_back(
      {track, std::move(name), std::move(category), std::move(span), std::move(args)});
}

void TraceRecorder::flow(int from_track, double from_us, int to_track, double to_us,
                         std::string_view name) {
  if (!reserve(2)) return;
  const std::uint64_t id = (static_cast<std::uint64_t>(pid_) << 32) + next_flow_++;
  append({{"ph", "s"},
          {"pid", pid_},
          {"tid", from_track},
          {"id", id},
          {"ts", from_us},
          {"name", name},
          {"cat", "flow"}});
  append({{"ph", "f"},
          {"bp", "e"},
          {"pid", pid_},
          {"tid", to_track},
          {"id", id},
          {"ts", to_us},
          {"name", name},
          {"cat", "flow"}});
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

std::string TraceRecorder::events_json(const std::string& process_name) {
  nlohmann::json head = nlohmann::json::array();
  const int host = static_cast<int>(TraceTrack::host);
  head.push_back(metadata(pid_, host, "process_name", process_name));
  head.push_back({{"ph", "M"},
                  {"pid", pid_},
                  {"tid", host},
                  {"name", "process_sort_index"},
                  {"args", {{"sort_index", pid_}}}});
  head.push_back(
      metadata(pid_, host, "thread_name", "host: steps, operations, blocked in collectives"));
  if (device_used_) {
    head.push_back(metadata(pid_, static_cast<int>(TraceTrack::device), "thread_name",
                            "device stream: operations (CUDA events)"));
  }
  for (int lane = 0; lane < lanes_used_; ++lane) {
    head.push_back(metadata(pid_, static_cast<int>(TraceTrack::collectives) + lane, "thread_name",
                            lane == 0 ? std::string("collectives in flight")
                                      : fmt::format("collectives in flight {}", lane)));
  }
  std::string out;
  for (const nlohmann::json& e : head) out += e.dump() + ",";
  out += text_;
  for (Deferred& d : deferred_) {
    const auto [begin, end] = d.span->microseconds();
    out += nlohmann::json{{"ph", "X"},
                          {"pid", pid_},
                          {"tid", d.track},
                          {"name", d.name},
                          {"cat", d.category},
                          {"ts", begin},
                          {"dur", std::max(0.0, end - begin)},
                          {"args", d.args}}
               .dump();
    out += ',';
  }
  if (!out.empty()) out.pop_back();  // the last comma
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
  trace_->slice(static_cast<int>(TraceTrack::host), name_, category_, begin_us_, trace_->now_us(),
                args_);
  trace_ = nullptr;
}

}  // namespace tplab
