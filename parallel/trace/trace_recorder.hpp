/// @file
/// TraceRecorder: one rank's timeline of operations, collectives and steps, written once at the
/// end in the Chrome trace-event format that Perfetto and chrome://tracing open.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tplab {

/// The rows of one rank's timeline (Chrome trace "threads" of the rank's process). None is 0,
/// which Perfetto takes for the idle thread.
enum class TraceTrack : int {
  host = 1,  ///< what the rank's thread does: steps, Device operations, time blocked in collectives
  device = 2,  ///< operations timed on a GPU's stream (CUDA events), where the device runs them
  collectives = 10,  ///< collectives from start to completion; lane k is track 10 + k
};

/// An interval measured on another clock (a GPU's events), read when the trace is written.
class DeferredSpan {
 public:
  virtual ~DeferredSpan() = default;
  /// Begin and end in microseconds since the recorder's origin; may block until they are known.
  virtual std::pair<double, double> microseconds() = 0;
};

/// One rank's trace, buffered in memory as the JSON text of its events: slices on tracks (a
/// name, a category, a begin and end in microseconds since the origin, arguments), flow arrows
/// between them, and a cap on how many events it keeps, past which it counts what it dropped.
/// Slices on one track must nest: each either contains or is disjoint from every other, as the
/// scopes that record them do. The text goes into one buffer reserved up front, never into
/// small objects that live until the end: those would sit among the tensors a step allocates
/// and frees, keep the allocator from reusing their memory, and make every step touch fresh
/// pages (it doubled a step's time before the buffer was one block).
class TraceRecorder {
 public:
  /// Events kept per rank before further ones are dropped (and counted): about 100 MB of JSON.
  static constexpr std::size_t kDefaultCapacity = 500'000;

  /// The trace of process `pid` (rank + 1 in tplab's files), its clock starting now, keeping at
  /// most `capacity` events.
  explicit TraceRecorder(int pid, std::size_t capacity = kDefaultCapacity);

  /// The process id its events carry.
  int pid() const { return pid_; }
  /// Different for every recorder and every restart(): a backend that keeps an origin of its
  /// own clock per trace (CudaDevice) knows by it when to take a new one.
  std::uint64_t epoch() const { return epoch_; }
  /// Microseconds since the origin, on the host's steady clock.
  double now_us() const;
  /// Moves the origin to `origin` (the ranks of one host take the same instant of their shared
  /// steady clock, so that their timelines line up: host/trace_file.hpp, start_trace_clock)
  /// and forgets what was recorded.
  void restart(std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now());

  /// A slice of `track` from `begin_us` to `end_us`.
  void slice(int track, std::string_view name, std::string_view category, double begin_us,
             double end_us, const nlohmann::json& args = nlohmann::json::object());
  /// A slice whose times another clock measured, resolved when the trace is written.
  void deferred_slice(int track, std::string name, std::string category,
                      std::unique_ptr<DeferredSpan> span,
                      nlohmann::json args = nlohmann::json::object());
  /// A flow arrow from the slice of `from_track` that holds `from_us` to the one of `to_track`
  /// that holds `to_us`. Its id is the file's: pid in the upper 32 bits.
  void flow(int from_track, double from_us, int to_track, double to_us, std::string_view name);

  /// Whether `events` more fit; when they do not, counts them as dropped. A caller that records
  /// several events that belong together (a collective's slices and its flow) asks once, so
  /// that the cap never keeps half of them. Once anything has been dropped, nothing more is
  /// kept: a step is in the file whole or not at all.
  bool reserve(std::size_t events);

  /// The lowest lane of the collectives' tracks that no collective in flight holds, now held
  /// until release_lane(): collectives on one lane never overlap, so their slices nest.
  int acquire_lane();
  /// Frees a lane acquire_lane() gave.
  void release_lane(int lane);

  /// Events dropped past the capacity.
  std::size_t dropped() const { return dropped_; }
  /// Events kept.
  std::size_t size() const { return kept_ + deferred_.size(); }
  /// The capacity.
  std::size_t capacity() const { return capacity_; }

  /// This rank's events as Chrome trace events, JSON objects separated by commas (the inside
  /// of a traceEvents array): the process named `process_name` and its tracks first, then
  /// every event; resolves the deferred slices.
  std::string events_json(const std::string& process_name);

 private:
  struct Deferred {
    int track;
    std::string name, category;
    std::unique_ptr<DeferredSpan> span;
    nlohmann::json args;
  };
  bool room();
  void append(const nlohmann::json& event);

  int pid_;
  std::uint64_t epoch_;
  std::chrono::steady_clock::time_point origin_;
  std::size_t capacity_;
  std::size_t kept_ = 0;
  std::size_t dropped_ = 0;
  std::uint64_t next_flow_ = 1;
  std::vector<bool> lanes_;  ///< lane k held by a collective in flight
  int lanes_used_ = 0;       ///< lanes ever held, for their names
  bool device_used_ = false;
  std::string text_;  ///< the kept events' JSON, each followed by a comma
  std::vector<Deferred> deferred_;
};

/// Records a slice of the host track from its construction to its destruction; does nothing
/// when the recorder is null, so that untraced code pays one comparison.
class TraceScope {
 public:
  /// A slice `name` of category `category` begins now, when `trace` is not null.
  TraceScope(TraceRecorder* trace, std::string name, std::string category,
             nlohmann::json args = nlohmann::json::object());
  ~TraceScope();
  /// Ends the slice now rather than at destruction.
  void close();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  TraceRecorder* trace_;
  std::string name_, category_;
  nlohmann::json args_;
  double begin_us_ = 0;
};

}  // namespace tplab
