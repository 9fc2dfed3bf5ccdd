#include "comm/comm_counters.hpp"

#include <string_view>

namespace tplab {

CollectiveCount& CommCounters::add_call(Collective collective, const std::string& group,
                                        int group_size, std::int64_t elements, std::int64_t bytes) {
  auto it = counts_.find(std::tuple<std::string_view, Collective>{group, collective});
  if (it == counts_.end()) {
    CollectiveCount first;
    first.collective = collective;
    first.group = group;
    first.group_size = group_size;
    it = counts_.emplace(std::tuple{group, collective}, std::move(first)).first;
  }
  CollectiveCount& c = it->second;
  c.calls += 1;
  c.elements += elements;
  c.bytes += bytes;
  c.bus_elements += static_cast<double>(elements) * bus_factor(collective, group_size);
  return c;
}

void CommCounters::record(Collective collective, const std::string& group, int group_size,
                          std::int64_t elements, std::int64_t bytes, double seconds,
                          double exposed_seconds) {
  CollectiveCount& c = add_call(collective, group, group_size, elements, bytes);
  c.seconds += seconds;
  c.exposed_seconds += exposed_seconds;
}

void CommCounters::record(Collective collective, const std::string& group, int group_size,
                          std::int64_t elements, std::int64_t bytes,
                          std::unique_ptr<DeviceInterval> interval) {
  if (unread_.size() >= kMaxUnread) read_intervals();
  CollectiveCount& c = add_call(collective, group, group_size, elements, bytes);
  unread_.push_back({&c, std::move(interval)});
}

void CommCounters::read_intervals() const {
  for (Unread& u : unread_) {
    const double seconds = u.interval->seconds();
    u.count->seconds += seconds;
    u.count->exposed_seconds += seconds;
  }
  unread_.clear();
}

void CommCounters::reset() {
  unread_.clear();
  counts_.clear();
}

std::vector<CollectiveCount> CommCounters::snapshot() const {
  read_intervals();
  std::vector<CollectiveCount> out;
  out.reserve(counts_.size());
  for (const auto& [key, count] : counts_) out.push_back(count);
  return out;
}

double CommCounters::total_seconds() const {
  read_intervals();
  double s = 0;
  for (const auto& [key, count] : counts_) s += count.seconds;
  return s;
}

double CommCounters::total_exposed_seconds() const {
  read_intervals();
  double s = 0;
  for (const auto& [key, count] : counts_) s += count.exposed_seconds;
  return s;
}

std::int64_t CommCounters::total_bytes() const {
  std::int64_t b = 0;
  for (const auto& [key, count] : counts_) b += count.bytes;
  return b;
}

}  // namespace tplab
