// MpiComm at 1..4 ranks: every collective with integer inputs (so sums are exact, in bf16 too,
// whose integers are exact up to 256), groups from split, and the counters that the cost model
// is checked against.
#include "comm/mpi_comm.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "comm/wrap_transport.hpp"
#include "core/bf16.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

class MpiCommTest : public testing::TestWithParam<DType> {
 protected:
  MpiCommTest() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}
  Tensor filled(const Extents& e, const std::function<double(std::int64_t)>& value) {
    Tensor t = dev.empty(e, GetParam());
    std::vector<double> v(static_cast<std::size_t>(element_count(e)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(static_cast<std::int64_t>(i));
    dev.upload(v, t);
    return t;
  }
  std::vector<double> read(const Tensor& t) {
    std::vector<double> v(static_cast<std::size_t>(t.numel()));
    dev.download(t, v);
    return v;
  }
  CpuDevice cpu;
  Device& dev = cpu;
  std::unique_ptr<Comm> world;
};

TEST_P(MpiCommTest, AllReduceSumsAndMaxes) {
  const int p = world->size(), r = world->rank();
  Tensor x = filled({3, 2}, [&](std::int64_t i) { return static_cast<double>(r + i); });
  world->all_reduce(x);
  const auto v = read(x);
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(v[i], p * (p - 1) / 2 + p * i);
  Tensor m = filled({2}, [&](std::int64_t i) { return static_cast<double>(r * (i + 1)); });
  world->all_reduce(m, ReduceOp::max);
  EXPECT_EQ(read(m), (std::vector<double>{double(p - 1), double(2 * (p - 1))}));
}

TEST_P(MpiCommTest, AllGatherConcatenatesInRankOrder) {
  const int p = world->size(), r = world->rank();
  Tensor shard = filled({2, 3}, [&](std::int64_t i) { return 16.0 * r + i; });
  Tensor full = dev.empty({2 * p, 3}, GetParam());
  world->all_gather(shard, full);
  const auto v = read(full);
  for (int q = 0; q < p; ++q) {
    for (int i = 0; i < 6; ++i) EXPECT_EQ(v[q * 6 + i], 16.0 * q + i);
  }
}

TEST_P(MpiCommTest, ReduceScatterLeavesEachRankItsSlice) {
  const int p = world->size(), r = world->rank();
  Tensor full = filled({2 * p, 2}, [&](std::int64_t i) { return static_cast<double>(i + r); });
  Tensor shard = dev.empty({2, 2}, GetParam());
  world->reduce_scatter(full, shard);
  const auto v = read(shard);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], p * (r * 4 + i) + p * (p - 1) / 2);
}

TEST_P(MpiCommTest, BroadcastAndReduceUseTheRoot) {
  const int p = world->size(), r = world->rank();
  const int root = p - 1;
  Tensor x = filled({4}, [&](std::int64_t i) { return r == root ? 7.0 + i : -1.0; });
  world->broadcast(x, root);
  EXPECT_EQ(read(x), (std::vector<double>{7, 8, 9, 10}));
  Tensor in = filled({2}, [&](std::int64_t i) { return static_cast<double>(r + i); });
  Tensor out = filled({2}, [](std::int64_t) { return -5.0; });
  world->reduce(in, out, root);
  if (r == root) {
    EXPECT_EQ(read(out), (std::vector<double>{p * (p - 1) / 2.0, p * (p - 1) / 2.0 + p}));
  } else {
    EXPECT_EQ(read(out), (std::vector<double>{-5.0, -5.0})) << "non-root output untouched";
  }
}

TEST_P(MpiCommTest, SplitMakesNamedSubgroupsThatShareCounters) {
  const int p = world->size(), r = world->rank();
  auto pairs = world->split(r / 2, r, "pairs");
  EXPECT_EQ(pairs->group(), "pairs");
  EXPECT_EQ(pairs->size(), std::min(2, p - (r / 2) * 2));
  EXPECT_EQ(pairs->rank(), r % 2);
  world->counters().reset();
  Tensor x = filled({5}, [&](std::int64_t) { return 1.0; });
  pairs->all_reduce(x);
  EXPECT_EQ(read(x)[0], pairs->size());
  const auto counts = world->counters().snapshot();
  if (pairs->size() == 1) {
    EXPECT_TRUE(counts.empty()) << "a group of one moves nothing and is not counted";
  } else {
    ASSERT_EQ(counts.size(), 1u);
    EXPECT_EQ(counts[0].group, "pairs");
    EXPECT_EQ(counts[0].calls, 1);
    EXPECT_EQ(counts[0].elements, 5);
    EXPECT_EQ(counts[0].bytes, 5 * static_cast<std::int64_t>(dtype_size(GetParam())));
    EXPECT_DOUBLE_EQ(counts[0].bus_elements, 5.0 * 2 * (2 - 1) / 2);
  }
}

TEST_P(MpiCommTest, CountersRecordLogicalSizesAsNcclTestsDefineThem) {
  const int p = world->size();
  if (p == 1) GTEST_SKIP() << "a world of one rank records nothing";
  world->counters().reset();
  Tensor shard = filled({3}, [](std::int64_t) { return 1.0; });
  Tensor full = dev.empty({3 * p}, GetParam());
  world->all_gather(shard, full);      // N = the gathered result
  world->reduce_scatter(full, shard);  // N = the input that is reduced
  world->all_reduce(full);             // N = the buffer
  world->broadcast(shard, 0);          // N = the buffer
  const auto counts = world->counters().snapshot();
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& c : counts) {
    const std::int64_t n = c.collective == Collective::broadcast ? 3 : 3 * p;
    EXPECT_EQ(c.elements, n) << collective_name(c.collective);
    EXPECT_DOUBLE_EQ(c.bus_elements, n * bus_factor(c.collective, p));
    EXPECT_GE(c.seconds, 0.0);
  }
}

TEST_P(MpiCommTest, CountersRecordTheReductionAndTheRootApart) {
  const int p = world->size();
  if (p == 1) GTEST_SKIP() << "a world of one rank records nothing";
  world->counters().reset();
  Tensor x = filled({4}, [](std::int64_t i) { return static_cast<double>(i); });
  Tensor out = dev.empty({4}, GetParam());
  world->all_reduce(x);
  world->all_reduce(x, ReduceOp::max);
  world->broadcast(x, p - 1);
  world->broadcast(x, p - 1);
  world->broadcast(x, 0);
  world->reduce(x, out, p - 1);
  Tensor full = dev.empty({4 * p}, GetParam());
  world->all_gather(x, full);
  std::vector<std::string> rows;
  for (const CollectiveCount& c : world->counters().snapshot()) {
    rows.push_back(fmt::format("{} x{}", collective_form(c.collective, c.op, c.root), c.calls));
  }
  const std::string last = std::to_string(p - 1);
  EXPECT_EQ(rows,
            (std::vector<std::string>{"all_reduce(sum) x1", "all_reduce(max) x1", "all_gather x1",
                                      "broadcast(root 0) x1", "broadcast(root " + last + ") x2",
                                      "reduce(sum, root " + last + ") x1"}));
}

std::string dtype_label(const testing::TestParamInfo<DType>& p) {
  return std::string(dtype_name(p.param));
}
TEST_P(MpiCommTest, StartedCollectivesMatchBlockingOnesAndAreCountedOnce) {
  const int p = world->size(), r = world->rank();
  const auto value = [&](std::int64_t i) { return static_cast<double>(3 * r + i); };
  Tensor blocking = filled({4, 3}, value), started = filled({4, 3}, value);
  Tensor shard = filled({2, 3}, value);
  Tensor gathered = dev.empty({2 * p, 3}, GetParam());
  Tensor gathered_started = dev.empty({2 * p, 3}, GetParam());
  Tensor bcast = filled({5}, value), bcast_started = filled({5}, value);
  Tensor full = filled({2 * p, 2}, value);
  Tensor scattered = dev.empty({2, 2}, GetParam());
  Tensor scattered_started = dev.empty({2, 2}, GetParam());
  world->all_reduce(blocking);
  world->all_gather(shard, gathered);
  world->broadcast(bcast, p - 1);
  world->reduce_scatter(full, scattered);
  world->counters().reset();
  // All four in flight at once, waited for in another order than started.
  CommRequest a = world->start_all_reduce(started);
  CommRequest g = world->start_all_gather(shard, gathered_started);
  CommRequest b = world->start_broadcast(bcast_started, p - 1);
  CommRequest s = world->start_reduce_scatter(full, scattered_started);
  EXPECT_TRUE(a.pending());
  s.wait();
  b.wait();
  g.wait();
  a.wait();
  a.wait();  // a second wait returns at once and records nothing
  EXPECT_FALSE(a.pending());
  EXPECT_EQ(read(started), read(blocking));
  EXPECT_EQ(read(gathered_started), read(gathered));
  EXPECT_EQ(read(bcast_started), read(bcast));
  EXPECT_EQ(read(scattered_started), read(scattered));
  const auto counts = world->counters().snapshot();
  if (p == 1) {
    EXPECT_TRUE(counts.empty()) << "a group of one rank moves nothing";
    return;
  }
  ASSERT_EQ(counts.size(), 4u);
  for (const CollectiveCount& c : counts) {
    EXPECT_EQ(c.calls, 1) << collective_name(c.collective);
    EXPECT_GE(c.exposed_seconds, 0.0);
    EXPECT_LE(c.exposed_seconds, c.seconds) << "exposed time is part of the span";
  }
  EXPECT_LE(world->counters().total_exposed_seconds(), world->counters().total_seconds());
}

TEST_P(MpiCommTest, BlockingCollectivesAreExposedThroughout) {
  Tensor x = filled({8}, [](std::int64_t i) { return static_cast<double>(i); });
  world->counters().reset();
  world->all_reduce(x);
  for (const CollectiveCount& c : world->counters().snapshot()) {
    EXPECT_EQ(c.exposed_seconds, c.seconds);
  }
}

TEST_P(MpiCommTest, SumsRoundedAsTheDtypeHoldsThem) {
  // 1 + 2^-7 on every rank (bf16's 7 fraction bits hold it): the sum p + p 2^-7 is exact in f64
  // and f32, and in bf16 rounded to its 8 significant bits (3.0234375 to 3.03125 at p = 3),
  // never the sum of the bit patterns as integers.
  const int p = world->size();
  Tensor x = filled({1}, [](std::int64_t) { return 1.0 + 0x1p-7; });
  world->all_reduce(x);
  const double exact = p * (1.0 + 0x1p-7);
  const double held = GetParam() == DType::bf16 ? float_from_bf16(bf16_from_double(exact)) : exact;
  EXPECT_EQ(read(x)[0], held) << "a sum over " << p << " ranks";
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MpiCommTest, testing::Values(DType::f64, DType::f32, DType::bf16),
                         dtype_label);

}  // namespace
}  // namespace tplab
