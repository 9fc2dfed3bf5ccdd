// TracingComm at 1..4 ranks: every collective of a group of more than one rank is one slice on a
// lane of the collectives' tracks, with its kind, group, the group's world ranks and bytes, and
// one flow to the host slice that waited for it; the host track holds the time blocked in it,
// the whole call of a blocking one, starting and waiting for a started one; a group of one rank
// records nothing, as it counts nothing; the counters count as they do untraced.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab {
namespace {

constexpr int kHost = static_cast<int>(TraceTrack::host);

std::vector<nlohmann::json> with(const nlohmann::json& events, const std::string& key,
                                 const std::string& value) {
  std::vector<nlohmann::json> out;
  for (const auto& e : events) {
    if (e.contains(key) && e[key] == value) out.push_back(e);
  }
  return out;
}

/// One flow per collective, each finishing where a comm-blocked slice of the host begins.
void expect_one_flow_each(const nlohmann::json& events, std::size_t collectives,
                          const std::vector<nlohmann::json>& blocked) {
  const auto starts = with(events, "ph", "s"), finishes = with(events, "ph", "f");
  ASSERT_EQ(starts.size(), collectives);
  ASSERT_EQ(finishes.size(), collectives);
  for (const auto& f : finishes) {
    EXPECT_TRUE(std::any_of(blocked.begin(), blocked.end(),
                            [&](const auto& b) { return b["ts"] == f["ts"]; }));
  }
}

TEST(TracingComm, EveryCollectiveIsASliceWithItsGroupRanksAndBytesAndOneFlow) {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  auto trace = std::make_shared<TraceRecorder>(r + 1);
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>(), trace);
  const int p = world->size();
  // Even and odd world ranks: at p = 1 and 2 each half is a group of one rank.
  auto half = world->split(r % 2, r, "half");
  CpuDevice host;
  Tensor x = host.zeros({6}, DType::f64);
  world->all_reduce(x);  // blocking, on the world
  Tensor shard = host.zeros({2, 3}, DType::f32);
  Tensor full = host.empty({2 * half->size(), 3}, DType::f32);
  CommRequest gather = half->start_all_gather(shard, full);  // started, on the half
  gather.wait();
  world->barrier();

  const nlohmann::json events =
      nlohmann::json::parse(fmt::format("[{}]", trace->events_json("rank")));
  const auto collectives = with(events, "cat", "collective");
  const int expected = (p > 1 ? 1 : 0) + (half->size() > 1 ? 1 : 0);
  ASSERT_EQ(static_cast<int>(collectives.size()), expected);
  std::map<std::string, nlohmann::json> by_group;
  for (const auto& c : collectives) {
    by_group[c["args"]["group"]] = c;
    EXPECT_GE(c["tid"].get<int>(), static_cast<int>(TraceTrack::collectives));
  }
  if (p > 1) {
    const auto& c = by_group.at("world");
    EXPECT_EQ(c["args"]["collective"], "all_reduce");
    EXPECT_EQ(c["args"]["op"], "sum");
    EXPECT_EQ(c["args"]["bytes"], 6 * 8);
    std::vector<int> all(static_cast<std::size_t>(p));
    for (int i = 0; i < p; ++i) all[static_cast<std::size_t>(i)] = i;
    EXPECT_EQ(c["args"]["ranks"].get<std::vector<int>>(), all);
  }
  if (half->size() > 1) {
    const auto& c = by_group.at("half");
    EXPECT_EQ(c["args"]["collective"], "all_gather");
    EXPECT_EQ(c["args"]["started"], true);
    EXPECT_EQ(c["args"]["bytes"], 2 * half->size() * 3 * 4);  // the full tensor, as counted
    std::vector<int> mine;
    for (int i = r % 2; i < p; i += 2) mine.push_back(i);
    EXPECT_EQ(c["args"]["ranks"].get<std::vector<int>>(), mine);
    EXPECT_EQ(half->world_ranks(), mine);
  }
  // The host track: the blocking call whole, the started one's start and wait.
  const auto blocked = with(events, "cat", "comm-blocked");
  EXPECT_EQ(static_cast<int>(blocked.size()), (p > 1 ? 1 : 0) + (half->size() > 1 ? 2 : 0));
  for (const auto& b : blocked) EXPECT_EQ(b["tid"], kHost);
  EXPECT_EQ(with(events, "cat", "barrier").size(), 1u);
  expect_one_flow_each(events, collectives.size(), blocked);
  // Traced or not, the counters count the same collectives.
  EXPECT_EQ(static_cast<int>(world->counters().snapshot().size()), expected);
}

}  // namespace
}  // namespace tplab
