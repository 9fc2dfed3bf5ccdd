// ExecutionPolicy at 1..4 ranks: each collective, blocking or started, gives the same result,
// and only a started one leaves its request to be waited for.
#include "scheme/execution_policy.hpp"

#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

class ExecutionPolicyTest : public testing::TestWithParam<bool> {
 protected:
  ExecutionPolicyTest()
      : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}
  ExecutionPolicy policy() const { return {.overlap = GetParam()}; }
  Tensor filled(const Extents& e, double base) {
    Tensor t = device.empty(e, DType::f64);
    std::vector<double> v(static_cast<std::size_t>(element_count(e)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = base + static_cast<double>(i);
    device.upload(v, t);
    return t;
  }
  std::vector<double> read(const Tensor& t) {
    std::vector<double> v(static_cast<std::size_t>(t.numel()));
    device.download(t, v);
    return v;
  }
  /// A started collective is pending until waited for; a blocking one is complete on return.
  void expect_issued(CommRequest& request) {
    EXPECT_EQ(request.pending(), GetParam());
    request.wait();
    EXPECT_FALSE(request.pending());
  }
  CpuDevice device;
  std::unique_ptr<Comm> world;
};

TEST_P(ExecutionPolicyTest, AllReduceSums) {
  const int p = world->size(), r = world->rank();
  Tensor x = filled({2, 2}, r);
  CommRequest sum = policy().all_reduce(*world, x);
  expect_issued(sum);
  const auto v = read(x);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], p * (p - 1) / 2 + p * i);
}

TEST_P(ExecutionPolicyTest, AllGatherStacksInRankOrder) {
  const int p = world->size(), r = world->rank();
  const Tensor shard = filled({1, 3}, 10.0 * r);
  Tensor full = device.empty({p, 3}, DType::f64);
  CommRequest gather = policy().all_gather(*world, shard, full);
  expect_issued(gather);
  const auto v = read(full);
  for (int q = 0; q < p; ++q) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(v[q * 3 + i], 10.0 * q + i);
  }
}

TEST_P(ExecutionPolicyTest, ReduceScatterLeavesEachRankItsRows) {
  const int p = world->size(), r = world->rank();
  const Tensor full = filled({p, 2}, r);
  Tensor shard = device.empty({1, 2}, DType::f64);
  CommRequest scatter = policy().reduce_scatter(*world, full, shard);
  expect_issued(scatter);
  const auto v = read(shard);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(v[i], p * (2 * r + i) + p * (p - 1) / 2);
}

TEST_P(ExecutionPolicyTest, BroadcastCopiesTheRoot) {
  const int root = world->size() - 1;
  Tensor x = filled({3}, 100.0 * world->rank());
  CommRequest broadcast = policy().broadcast(*world, x, root);
  expect_issued(broadcast);
  EXPECT_EQ(read(x), (std::vector<double>{100.0 * root, 100.0 * root + 1, 100.0 * root + 2}));
}

TEST_P(ExecutionPolicyTest, PendingTensorReadsAfterArrival) {
  const int p = world->size();
  PendingTensor sum{.tensor = filled({2}, 1.0)};
  sum.arrival = policy().all_reduce(*world, sum.tensor);
  EXPECT_EQ(read(sum.wait()), (std::vector<double>{1.0 * p, 2.0 * p}));
  EXPECT_FALSE(sum.arrival.pending());
}

TEST_P(ExecutionPolicyTest, PendingTensorKeepsTheInputUntilArrival) {
  const int p = world->size(), r = world->rank();
  PendingTensor shard{.tensor = device.empty({1, 2}, DType::f64), .input = filled({p, 2}, r)};
  shard.arrival = policy().reduce_scatter(*world, shard.input, shard.tensor);
  const auto v = read(shard.wait());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(v[i], p * (2 * r + i) + p * (p - 1) / 2);
  EXPECT_FALSE(shard.input.defined());
}

INSTANTIATE_TEST_SUITE_P(BlockingAndStarted, ExecutionPolicyTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "started" : "blocking";
                         });

}  // namespace
}  // namespace tplab
