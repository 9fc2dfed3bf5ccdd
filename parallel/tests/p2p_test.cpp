// send and recv over MpiComm at 2 and 4 ranks, as every program wraps it: a ring of started
// transfers and pairs of blocking ones move every value exactly (integers, so bf16 holds them
// too), past MPI's eager limit too; the counters file each as "send(to k)" or "recv(from j)"
// with the tensor's bytes; the trace names the peer; a wrong peer is refused before anything is
// sent, a message of another size before anything is written; an injected fault reaches them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

#include "comm/fault_injection.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "fault_plan.hpp"
#include "trace/trace_recorder.hpp"

namespace tplab {
namespace {

/// The value of element i of what rank r sends: an integer below 256, exact in bf16.
double sent_value(int r, std::int64_t i) {
  return static_cast<double>((37 * r + i) % 251);
}

class P2pTest : public testing::Test {
 protected:
  P2pTest() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}
  void SetUp() override {
    if (world->size() == 1) GTEST_SKIP() << "a transfer needs two ranks";
  }
  Tensor filled(const Extents& e, DType dtype, const std::function<double(std::int64_t)>& value) {
    Tensor t = cpu.empty(e, dtype);
    std::vector<double> v(static_cast<std::size_t>(element_count(e)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(static_cast<std::int64_t>(i));
    cpu.upload(v, t);
    return t;
  }
  std::vector<double> read(const Tensor& t) {
    std::vector<double> v(static_cast<std::size_t>(t.numel()));
    cpu.download(t, v);
    return v;
  }
  /// The values rank `from` sends in a tensor of extents `e`.
  std::vector<double> expected_from(int from, const Extents& e) {
    std::vector<double> v(static_cast<std::size_t>(element_count(e)));
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = sent_value(from, static_cast<std::int64_t>(i));
    return v;
  }
  /// The partner of this rank in the pairs (0, 1), (2, 3), ...; -1 for a last rank without one.
  int partner() const {
    const int other = world->rank() ^ 1;
    return other < world->size() ? other : -1;
  }
  CpuDevice cpu;
  std::unique_ptr<Comm> world;
};

class P2pDtypeTest : public P2pTest, public testing::WithParamInterface<DType> {};

TEST_P(P2pDtypeTest, ARingOfStartedTransfersMovesEveryValue) {
  const int p = world->size(), r = world->rank();
  const int next = (r + 1) % p, previous = (r + p - 1) % p;
  // Small, and past MPI's eager limit: every rank sends before any receives, so a send that
  // blocked until its receive was posted would hang here.
  for (const Extents& e : {Extents{3, 4}, Extents{256, 64}}) {
    const Tensor out = filled(e, GetParam(), [&](std::int64_t i) { return sent_value(r, i); });
    Tensor in = filled(e, GetParam(), [](std::int64_t) { return -1.0; });
    CommRequest sending = world->start_send(out, next);
    CommRequest receiving = world->start_recv(in, previous);
    EXPECT_TRUE(sending.pending());
    EXPECT_TRUE(receiving.pending());
    receiving.wait();
    sending.wait();
    EXPECT_EQ(read(in), expected_from(previous, e)) << to_string(e);
    EXPECT_EQ(read(out), expected_from(r, e)) << "a send leaves its tensor as it was";
  }
}

TEST_P(P2pDtypeTest, BlockingPairsMoveEveryValueBothWays) {
  const int r = world->rank(), other = partner();
  if (other < 0) return;  // the last of an odd number of ranks
  const Extents e{5, 3};
  const Tensor out = filled(e, GetParam(), [&](std::int64_t i) { return sent_value(r, i); });
  Tensor in = filled(e, GetParam(), [](std::int64_t) { return -1.0; });
  // Even ranks send first, odd ones receive first: no pair waits for itself.
  if (r % 2 == 0) {
    world->send(out, other);
    world->recv(in, other);
  } else {
    world->recv(in, other);
    world->send(out, other);
  }
  EXPECT_EQ(read(in), expected_from(other, e));
}

std::string dtype_label(const testing::TestParamInfo<DType>& p) {
  return std::string(dtype_name(p.param));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, P2pDtypeTest, testing::Values(DType::f64, DType::f32, DType::bf16),
                         dtype_label);

TEST_F(P2pTest, TheCountersFileEachTransferWithItsPeerAndBytes) {
  const int r = world->rank(), other = partner();
  world->counters().reset();
  if (other >= 0) {
    const Tensor out = filled({6, 2}, DType::f32, [&](std::int64_t i) { return sent_value(r, i); });
    Tensor in = cpu.empty({6, 2}, DType::f32);
    CommRequest sending = world->start_send(out, other);
    world->recv(in, other);
    sending.wait();
  }
  std::vector<std::string> rows;
  for (const CollectiveCount& c : world->counters().snapshot()) {
    rows.push_back(fmt::format("{} x{} on {}({}): {} elements, {} bytes, {} on the bus",
                               collective_form(c.collective, c.op, c.root), c.calls, c.group,
                               c.group_size, c.elements, c.bytes, c.bus_elements));
    EXPECT_LE(c.exposed_seconds, c.seconds);
  }
  if (other < 0) {
    EXPECT_TRUE(rows.empty());
    return;
  }
  const int p = world->size();
  EXPECT_EQ(rows,
            (std::vector<std::string>{
                fmt::format("send(to {}) x1 on world({}): 12 elements, 48 bytes, 12 on the bus",
                            other, p),
                fmt::format("recv(from {}) x1 on world({}): 12 elements, 48 bytes, 12 on the "
                            "bus",
                            other, p)}));
}

TEST_F(P2pTest, TransfersInASplitGroupUseItsRanks) {
  const int r = world->rank();
  // Odd and even world ranks: at 4 ranks, groups {0, 2} and {1, 3}, ranks 0 and 1 in each.
  auto half = world->split(r % 2, r, "half");
  if (half->size() == 1) return;
  const int other = 1 - half->rank();
  const Tensor out = filled({4}, DType::f64, [&](std::int64_t i) { return sent_value(r, i); });
  Tensor in = cpu.empty({4}, DType::f64);
  world->counters().reset();
  CommRequest receiving = half->start_recv(in, other);
  half->send(out, other);
  receiving.wait();
  EXPECT_EQ(read(in), expected_from(r % 2 + 2 * other, {4}));
  const auto counts = world->counters().snapshot();
  ASSERT_EQ(counts.size(), 2u);
  for (const CollectiveCount& c : counts) {
    EXPECT_EQ(c.group, "half");
    EXPECT_EQ(c.root, other) << "the peer is a rank of the group";
  }
}

TEST_F(P2pTest, AWrongPeerIsRefusedBeforeAnythingIsSent) {
  const int p = world->size(), r = world->rank();
  Tensor x = filled({4}, DType::f64, [](std::int64_t) { return 1.0; });
  world->counters().reset();
  for (int peer : {r, -1, p}) {
    EXPECT_THROW(world->send(x, peer), InternalError) << peer;
    EXPECT_THROW(world->recv(x, peer), InternalError) << peer;
    EXPECT_THROW(world->start_send(x, peer), InternalError) << peer;
    EXPECT_THROW(world->start_recv(x, peer), InternalError) << peer;
  }
  try {
    world->send(x, p);
    ADD_FAILURE() << "a send to rank " << p << " of " << p;
  } catch (const InternalError& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("send peer {} on 'world': the peer must be another rank of the group "
                          "(0-{}, this one {})",
                          p, p - 1, r));
  }
  EXPECT_TRUE(world->counters().snapshot().empty()) << "nothing was sent or received";
  world->barrier();  // a message sent by mistake would be left for the next test to receive
}

TEST_F(P2pTest, AMessageOfAnotherSizeIsRefused) {
  const int r = world->rank(), other = partner();
  if (other < 0) return;
  // Blocking: 4 f64 sent into room for 3, and 3 into room for 4 (the sizes swapped the other
  // way); each is received, dropped, and refused, the receiver's tensor left as it was.
  const Tensor four = filled({4}, DType::f64, [](std::int64_t) { return 7.0; });
  Tensor three = filled({3}, DType::f64, [](std::int64_t) { return -1.0; });
  if (r % 2 == 0) {
    world->send(four, other);
  } else {
    try {
      world->recv(three, other);
      ADD_FAILURE() << "a message of 32 bytes was received into 24";
    } catch (const InternalError& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("recv from {} on 'world': a message of 32 bytes arrived for [3] f64 "
                            "of 24 bytes; the sender's tensor must have the receiver's extents "
                            "and dtype",
                            other));
    }
    EXPECT_EQ(read(three), std::vector<double>(3, -1.0));
  }
  // Started: a shorter message is refused when the receive is waited for.
  const Tensor two = filled({2}, DType::f32, [](std::int64_t) { return 5.0; });
  Tensor room = filled({4}, DType::f32, [](std::int64_t) { return -1.0; });
  if (r % 2 == 1) {
    world->send(two, other);
  } else {
    CommRequest receiving = world->start_recv(room, other);
    EXPECT_THROW(receiving.wait(), InternalError);
  }
  world->barrier();
}

TEST_F(P2pTest, TheTraceNamesEachTransferAndItsPeer) {
  const int r = world->rank(), other = partner();
  auto trace = std::make_shared<TraceRecorder>(r + 1);
  auto traced = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>(), trace);
  if (other < 0) return;
  const Tensor out = filled({8}, DType::f64, [&](std::int64_t i) { return sent_value(r, i); });
  Tensor in = cpu.empty({8}, DType::f64);
  CommRequest receiving = traced->start_recv(in, other);
  traced->send(out, other);
  receiving.wait();
  const nlohmann::json events =
      nlohmann::json::parse(fmt::format("[{}]", trace->events_json("rank")));
  std::map<std::string, nlohmann::json> slices;
  for (const auto& e : events) {
    if (e.contains("cat") && e["cat"] == "collective") slices[e["args"]["collective"]] = e["args"];
  }
  ASSERT_EQ(slices.size(), 2u);
  for (const char* kind : {"send", "recv"}) {
    const nlohmann::json& args = slices.at(kind);
    EXPECT_EQ(args["peer"], other) << kind;
    EXPECT_FALSE(args.contains("root")) << kind;
    EXPECT_EQ(args["bytes"], 8 * 8) << kind;
  }
  EXPECT_EQ(slices.at("recv")["started"], true);
}

TEST_F(P2pTest, AnInjectedFaultFailsASendAndPutsANanIntoAReceive) {
  const int r = world->rank(), other = partner();
  {
    // Rank 0's first transfer throws before its transport: rank 1 is not left waiting for it.
    const FaultPlan fault("rank=0,collective=0,kind=throw");
    auto injected = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
    const Tensor x = filled({2}, DType::f64, [](std::int64_t) { return 1.0; });
    if (r == 0) {
      EXPECT_THROW(injected->send(x, 1), std::runtime_error);
    }
    EXPECT_TRUE(injected->counters().snapshot().empty());
  }
  {
    // Rank 1's first transfer, a receive, gets a NaN in its first element once it completes.
    const FaultPlan fault("rank=1,collective=0,kind=nan");
    auto injected = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
    if (other < 0) return;
    const Tensor out = filled({3}, DType::f64, [&](std::int64_t i) { return sent_value(r, i); });
    Tensor in = cpu.empty({3}, DType::f64);
    if (r % 2 == 0) {
      injected->send(out, other);
    } else {
      injected->start_recv(in, other).wait();
      const auto v = read(in);
      EXPECT_EQ(std::isnan(v[0]), r == 1) << v[0];
      EXPECT_EQ(v[1], sent_value(other, 1));
      EXPECT_EQ(v[2], sent_value(other, 2));
    }
  }
}

}  // namespace
}  // namespace tplab
