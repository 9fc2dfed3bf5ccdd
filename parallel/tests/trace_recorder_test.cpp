// TraceRecorder keeps at most its capacity and counts the rest; lanes of collectives are reused
// only once free; the events of a rank carry its pid, file-wide flow ids and the names of the
// tracks they use; and a traced CpuDevice puts each of its operations on the host track, with
// its operands, until tracing is turned off.
#include "trace/trace_recorder.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

constexpr int kHost = static_cast<int>(TraceTrack::host);

/// The recorder's events, parsed.
nlohmann::json events_of(TraceRecorder& trace, const std::string& process = "rank") {
  return nlohmann::json::parse(fmt::format("[{}]", trace.events_json(process)));
}

std::vector<nlohmann::json> of_phase(const nlohmann::json& events, const std::string& phase) {
  std::vector<nlohmann::json> out;
  for (const auto& e : events) {
    if (e["ph"] == phase) out.push_back(e);
  }
  return out;
}

TEST(TraceRecorder, KeepsItsCapacityAndCountsWhatItDrops) {
  TraceRecorder trace(1, 5);
  for (int i = 0; i < 8; ++i) trace.slice(kHost, "op", "op", i, i + 0.5);
  EXPECT_EQ(trace.size(), 5u);
  EXPECT_EQ(trace.dropped(), 3u);
  trace.flow(10, 0, kHost, 0, "all_reduce");  // a flow is two events: none fits
  EXPECT_EQ(trace.dropped(), 5u);
  EXPECT_EQ(of_phase(events_of(trace), "X").size(), 5u);
  trace.restart();
  EXPECT_EQ(trace.size(), 0u);
  EXPECT_EQ(trace.dropped(), 0u);
}

TEST(TraceRecorder, OnceAnEventIsDroppedNothingMoreIsKept) {
  TraceRecorder trace(1, 5);
  for (int i = 0; i < 3; ++i) trace.slice(kHost, "op", "op", i, i + 0.5);
  EXPECT_FALSE(trace.reserve(4));  // a collective's four events do not fit: none is kept
  trace.slice(kHost, "step 0", "step", 0, 3);  // one would fit, but the step lost its collective
  EXPECT_EQ(trace.size(), 3u);
  EXPECT_EQ(trace.dropped(), 5u);
  const std::uint64_t epoch = trace.epoch();
  trace.restart();
  EXPECT_NE(trace.epoch(), epoch) << "a backend's clock origin must be taken again";
  EXPECT_NE(TraceRecorder(2).epoch(), trace.epoch());
  EXPECT_TRUE(trace.reserve(4));
}

TEST(TraceRecorder, ReusesALaneOnlyOnceItIsFree) {
  TraceRecorder trace(1);
  EXPECT_EQ(trace.acquire_lane(), 0);
  EXPECT_EQ(trace.acquire_lane(), 1);
  trace.release_lane(0);
  EXPECT_EQ(trace.acquire_lane(), 0);
  EXPECT_EQ(trace.acquire_lane(), 2);
  EXPECT_THROW(trace.release_lane(3), InternalError);
}

TEST(TraceRecorder, EventsCarryThePidFlowIdsOfTheFileAndTrackNames) {
  TraceRecorder trace(3);
  const int lane = trace.acquire_lane();
  trace.slice(10 + lane, "all_gather", "collective", 1, 4);
  trace.slice(kHost, "wait all_gather", "comm-blocked", 3, 4);
  trace.flow(10 + lane, 1, kHost, 3, "all_gather");
  const nlohmann::json events = events_of(trace, "rank 3 (cpu)");
  for (const auto& e : events) EXPECT_EQ(e["pid"], 3);
  const auto starts = of_phase(events, "s"), finishes = of_phase(events, "f");
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_EQ(starts[0]["id"], finishes[0]["id"]);
  EXPECT_EQ(starts[0]["id"].get<std::uint64_t>() >> 32, 3u);  // process 3's own ids
  EXPECT_EQ(finishes[0]["bp"], "e");
  std::vector<int> named;
  for (const auto& m : of_phase(events, "M")) {
    if (m["name"] == "thread_name") named.push_back(m["tid"].get<int>());
    if (m["name"] == "process_name") {
      EXPECT_EQ(m["args"]["name"], "rank 3 (cpu)");
    }
  }
  EXPECT_NE(std::find(named.begin(), named.end(), kHost), named.end());
  EXPECT_NE(std::find(named.begin(), named.end(), 10), named.end());
}

TEST(TraceScope, RecordsAHostSliceAndNothingWithoutARecorder) {
  TraceRecorder trace(1);
  {
    const TraceScope none(nullptr, "step 0", "step");
    TraceScope step(&trace, "step 1", "step", {{"series", "step"}});
    step.close();
  }
  const auto slices = of_phase(events_of(trace), "X");
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0]["name"], "step 1");
  EXPECT_EQ(slices[0]["args"]["series"], "step");
  EXPECT_GE(slices[0]["dur"].get<double>(), 0.0);
}

TEST(DeviceTracing, EveryOperationIsASliceWithItsOperandsUntilTurnedOff) {
  CpuDevice device;
  TraceRecorder trace(1);
  Tensor a = device.zeros({4, 3}, DType::f64);  // untraced: before trace_into
  Tensor b = device.zeros({4, 5}, DType::f64);
  Tensor c = device.empty({3, 5}, DType::f64);
  device.trace_into(&trace);
  EXPECT_EQ(device.trace(), &trace);
  device.matmul(a, Transpose::yes, b, Transpose::no, c);  // [3, 4] x [4, 5] -> [3, 5]
  device.gelu_forward(c, c);
  device.fill(c, 1.0);
  device.trace_into(nullptr);
  device.scale(c, 2.0);  // untraced again
  const auto slices = of_phase(events_of(trace), "X");
  ASSERT_EQ(slices.size(), 3u);
  EXPECT_EQ(slices[0]["name"], "matmul");
  EXPECT_EQ(slices[0]["cat"], "op");
  EXPECT_EQ(slices[0]["args"]["product"], "A^T B");
  EXPECT_EQ(slices[0]["args"]["dtype"], "f64");
  EXPECT_EQ(slices[0]["args"]["operands"],
            nlohmann::json::array(
                {to_string(Extents{4, 3}), to_string(Extents{4, 5}), to_string(Extents{3, 5})}));
  EXPECT_EQ(slices[1]["name"], "gelu_forward");
  EXPECT_EQ(slices[2]["name"], "fill");
}

}  // namespace
}  // namespace tplab
