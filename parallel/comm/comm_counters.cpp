#include "comm/comm_counters.hpp"

#include <string_view>

namespace tplab {

CollectiveCount& CommCounters::add_call(const CountedCall& call) {
  auto it = counts_.find(std::tuple<std::string_view, Collective, ReduceOp, int>{
      call.group, call.collective, call.op, call.root});
  if (it == counts_.end()) {
    CollectiveCount first;
    first.collective = call.collective;
    first.op = call.op;
    first.root = call.root;
    first.group = call.group;
    first.group_size = call.group_size;
    it = counts_
             .emplace(std::tuple{call.group, call.collective, call.op, call.root}, std::move(first))
             .first;
  }
  CollectiveCount& c = it->second;
  c.calls += 1;
  c.elements += call.elements;
  c.bytes += call.bytes;
  c.bus_elements +=
      static_cast<double>(call.elements) * bus_factor(call.collective, call.group_size);
  return c;
}

void CommCounters::record(const CountedCall& call, double seconds, double exposed_seconds) {
  CollectiveCount& c = add_call(call);
  c.seconds += seconds;
  c.exposed_seconds += exposed_seconds;
}

void CommCounters::record(const CountedCall& call, std::unique_ptr<DeviceInterval> interval) {
  if (unread_.size() >= kMaxUnread) read_intervals();
  CollectiveCount& c = add_call(call);
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

void CommCounters::record_in_flight(InFlight interval) {
  if (in_flight_.size() < kMaxInFlight) in_flight_.push_back(std::move(interval));
}

void CommCounters::reset() {
  unread_.clear();
  counts_.clear();
  in_flight_.clear();
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

GroupTotals CommCounters::group_totals(std::string_view group) const {
  GroupTotals totals;
  for (const CollectiveCount& c : snapshot()) {
    if (c.group != group) continue;
    totals.calls += c.calls;
    totals.bytes += c.bytes;
    totals.seconds += c.seconds;
    totals.exposed_seconds += c.exposed_seconds;
  }
  return totals;
}

}  // namespace tplab
