// The chain of communicators at 1..4 ranks: wrap_transport() counts every transport and adds
// fault injection only when TPLAB_INJECT_FAULT names the rank; a transport alone counts
// nothing; a collective timed on a device's clock is read when the counters are read.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "comm/counting_comm.hpp"
#include "comm/fault_injecting_comm.hpp"
#include "comm/fault_injection.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "fault_plan.hpp"

namespace tplab {
namespace {

/// A device interval of a fixed length that counts how often it was read.
class FixedInterval final : public DeviceInterval {
 public:
  FixedInterval(double seconds, std::shared_ptr<int> reads)
      : seconds_(seconds), reads_(std::move(reads)) {}
  double seconds() override {
    ++*reads_;
    return seconds_;
  }

 private:
  double seconds_;
  std::shared_ptr<int> reads_;
};

/// MPI that says each collective took 0.25 s on a device, as NcclComm reports its own.
class DeviceTimedComm final : public ForwardingComm {
 public:
  DeviceTimedComm(std::unique_ptr<Comm> inner, std::shared_ptr<int> reads)
      : ForwardingComm(std::move(inner)), reads_(std::move(reads)) {}
  std::unique_ptr<Comm> split(int, int, const std::string&) override { return nullptr; }
  std::unique_ptr<DeviceInterval> run(const CollectiveCall& call) override {
    inner().run(call);
    return std::make_unique<FixedInterval>(0.25, reads_);
  }

 private:
  std::shared_ptr<int> reads_;
};

TEST(CommChain, WithoutAPlanTheChainIsCountingOverTheTransport) {
  const FaultPlan none(nullptr);
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  EXPECT_NE(dynamic_cast<CountingComm*>(world.get()), nullptr);
  EXPECT_EQ(dynamic_cast<FaultInjectingComm*>(world.get()), nullptr);
  auto half = world->split(world->rank() % 2, world->rank(), "half");
  EXPECT_NE(dynamic_cast<CountingComm*>(half.get()), nullptr);
  EXPECT_EQ(world->transport(), "mpi");
}

TEST(CommChain, APlanWrapsTheRankItNamesAndInjects) {
  const FaultPlan plan("rank=0,collective=1,kind=nan");
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  const int p = world->size(), r = world->rank();
  auto* injecting = dynamic_cast<FaultInjectingComm*>(world.get());
  EXPECT_EQ(injecting != nullptr, r == 0);
  auto half = world->split(r % 2, r, "half");
  EXPECT_EQ(dynamic_cast<FaultInjectingComm*>(half.get()) != nullptr, r == 0);
  CpuDevice cpu;
  Tensor first = cpu.zeros({2}, DType::f64);
  Tensor second = cpu.zeros({2}, DType::f64);
  cpu.fill(first, 1.0);
  cpu.fill(second, 1.0);
  world->all_reduce(first);   // collective #0: left alone
  world->all_reduce(second);  // collective #1: rank 0's result gets a NaN
  EXPECT_EQ(first.data_as<double>()[0], p);
  EXPECT_EQ(std::isnan(second.data_as<double>()[0]), r == 0);
  EXPECT_EQ(second.data_as<double>()[1], p);
  // The NaN is written after the transport: the counters saw both calls.
  if (p > 1) {
    EXPECT_EQ(world->counters().snapshot().at(0).calls, 2);
  }
}

TEST(CommChain, ATransportAloneKeepsNoCounters) {
  auto transport = MpiComm::world();
  EXPECT_THROW(transport->counters(), UsageError);
}

TEST(CommChain, DeviceTimesAreReadWhenTheCountersAreRead) {
  auto reads = std::make_shared<int>(0);
  auto counters = std::make_shared<CommCounters>();
  CountingComm world(std::make_unique<DeviceTimedComm>(MpiComm::world(), reads), counters);
  if (world.size() == 1) GTEST_SKIP() << "a group of one rank is not counted";
  CpuDevice cpu;
  Tensor x = cpu.zeros({4}, DType::f64);
  world.all_reduce(x);
  world.all_reduce(x);
  EXPECT_EQ(*reads, 0);  // counted, not yet timed
  EXPECT_EQ(counters->total_bytes(), 2 * 4 * 8);
  EXPECT_EQ(*reads, 0);  // sizes need no device
  EXPECT_DOUBLE_EQ(counters->total_seconds(), 0.5);
  EXPECT_EQ(*reads, 2);
  EXPECT_DOUBLE_EQ(counters->total_exposed_seconds(), 0.5);
  EXPECT_EQ(*reads, 2);  // each interval is read once
  world.all_reduce(x);
  counters->reset();
  EXPECT_DOUBLE_EQ(counters->total_seconds(), 0.0);  // reset forgets the unread one too
  EXPECT_EQ(*reads, 2);
}

}  // namespace
}  // namespace tplab
