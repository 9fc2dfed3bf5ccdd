#include "trace_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

/// Every rank's bytes, concatenated on rank 0 (empty elsewhere), each rank's length beside.
std::vector<std::string> gather_on_rank0(const std::string& mine, MPI_Comm world) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world);
  std::vector<char> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[static_cast<std::size_t>(r)] = total;
      total += lengths[static_cast<std::size_t>(r)];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, world);
  std::vector<std::string> texts;
  if (rank != 0) return texts;
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<std::size_t>(r);
    texts.emplace_back(all.data() + offsets[i], static_cast<std::size_t>(lengths[i]));
  }
  return texts;
}

}  // namespace

void start_trace_clock(TraceRecorder& trace, MPI_Comm world) {
  MPI_Barrier(world);
  const auto now = std::chrono::steady_clock::now();
  std::int64_t origin_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  char host0[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  std::copy(std::begin(host), std::end(host), std::begin(host0));
  MPI_Bcast(&origin_ns, 1, MPI_INT64_T, 0, world);
  MPI_Bcast(host0, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, world);
  if (std::string_view(host) != std::string_view(host0)) {
    trace.restart(now);  // another host's clock: its own exit from the barrier
    return;
  }
  trace.restart(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(origin_ns)));
}

std::size_t trace_capacity() {
  const char* text = std::getenv("TPLAB_TRACE_EVENTS");
  if (text == nullptr) return TraceRecorder::kDefaultCapacity;
  std::size_t events = 0;
  const char* end = text + std::strlen(text);
  const auto [last, error] = std::from_chars(text, end, events);
  if (error != std::errc() || last != end || events < 1000) {
    throw UsageError(fmt::format(
        "TPLAB_TRACE_EVENTS={}: give the events a rank's trace keeps as a whole number of at "
        "least 1000 (default {})",
        text, TraceRecorder::kDefaultCapacity));
  }
  return events;
}

void write_trace_file(TraceRecorder& trace, MPI_Comm world, const std::string& path,
                      const std::string& device, const std::string& description) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (trace.dropped() > 0) {
    fmt::print(stderr,
               "tplab: --trace: rank {} kept its first {} events and dropped {} more (at most {} "
               "a rank, TPLAB_TRACE_EVENTS): the file ends early; trace fewer steps (--repeats, "
               "--steps) or raise the cap for the whole run\n",
               rank, trace.size(), trace.dropped(), trace.capacity());
  }
  // Each rank's events as text, joined on rank 0 without parsing them again.
  const std::string mine = trace.events_json(fmt::format("rank {} ({})", rank, device));
  std::int64_t total = static_cast<std::int64_t>(mine.size());
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, world);
  if (total > std::numeric_limits<int>::max()) {
    // MPI_Gatherv counts in int: every rank knows the total, so they leave together.
    if (rank == 0) {
      fmt::print(stderr,
                 "tplab: --trace: the ranks' timelines hold {:.1f} GB, more than one file takes "
                 "here (2 GiB): {} is not written; lower TPLAB_TRACE_EVENTS or trace fewer steps\n",
                 static_cast<double>(total) / 1e9, path);
    }
    return;
  }
  const std::vector<std::string> texts = gather_on_rank0(mine, world);
  const std::vector<std::string> counts = gather_on_rank0(std::to_string(trace.dropped()), world);
  if (rank != 0) return;
  nlohmann::json dropped = nlohmann::json::array();
  for (const std::string& c : counts) dropped.push_back(std::stoull(c));
  const nlohmann::json other = {
      {"producer", "tplab"},
      {"device", description},
      {"ranks", texts.size()},
      {"clock", "microseconds since every rank left one barrier (host steady clock)"},
      {"pid", "rank + 1 (Perfetto takes pid 0 for the idle process)"},
      {"capacity_per_rank", trace.capacity()},
      {"dropped_per_rank", std::move(dropped)}};
  std::string document = "{\"traceEvents\":[";
  bool first = true;
  for (const std::string& text : texts) {
    if (text.empty()) continue;
    if (!first) document += ',';
    document += text;
    first = false;
  }
  document += "],\"displayTimeUnit\":\"ms\",\"otherData\":" + other.dump() + "}\n";
  write_file_safely(path, document, "--trace");
}

}  // namespace tplab::app
