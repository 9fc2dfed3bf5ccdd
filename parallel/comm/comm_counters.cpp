#include "comm/comm_counters.hpp"

namespace tplab {

void CommCounters::record(Collective collective, const std::string& group, int group_size,
                          std::int64_t elements, std::int64_t bytes, double seconds) {
  CollectiveCount& c = counts_[{group, collective}];
  c.collective = collective;
  c.group = group;
  c.group_size = group_size;
  c.calls += 1;
  c.elements += elements;
  c.bytes += bytes;
  c.bus_elements += static_cast<double>(elements) * bus_factor(collective, group_size);
  c.seconds += seconds;
}

std::vector<CollectiveCount> CommCounters::snapshot() const {
  std::vector<CollectiveCount> out;
  out.reserve(counts_.size());
  for (const auto& [key, count] : counts_) out.push_back(count);
  return out;
}

double CommCounters::total_seconds() const {
  double s = 0;
  for (const auto& [key, count] : counts_) s += count.seconds;
  return s;
}

std::int64_t CommCounters::total_bytes() const {
  std::int64_t b = 0;
  for (const auto& [key, count] : counts_) b += count.bytes;
  return b;
}

}  // namespace tplab
