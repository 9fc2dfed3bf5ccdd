// DeviceStagedComm at 1..4 ranks, on the CPU: tensors that say they live on the GPU (in host
// memory here) go through the staging copy, as on a GPU, and every collective gives the same
// result and the same counters as MpiComm; sends and receives move the same bits. Integer
// values keep every sum exact, bf16 included. A NaN injected with TPLAB_INJECT_FAULT reaches device
// tensors (through the staging copy) and host bf16 ones: the fault wrapper, armed before the world
// is wrapped, writes it through the transport.
#include "comm/device_staged_comm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "comm/fault_injection.hpp"
#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/bf16.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

/// HostStagingCopy that counts its copies.
class CountingStagingCopy final : public StagingCopy {
 public:
  void to_host(const Tensor& src, std::span<std::byte> host) override {
    EXPECT_EQ(host.size(), src.bytes());
    ++to_host_calls;
    copy.to_host(src, host);
  }
  void to_device(std::span<const std::byte> host, Tensor& dst) override {
    EXPECT_EQ(host.size(), dst.bytes());
    ++to_device_calls;
    copy.to_device(host, dst);
  }
  int to_host_calls = 0;
  int to_device_calls = 0;

 private:
  HostStagingCopy copy;
};

/// A tensor in host memory, labelled as `device`'s.
Tensor tensor_on(DeviceKind device, const Extents& e, DType dtype) {
  const std::size_t bytes =
      std::max<std::size_t>(1, static_cast<std::size_t>(element_count(e)) * dtype_size(dtype));
  return Tensor(
      e, dtype, device,
      std::shared_ptr<std::byte>(new std::byte[bytes](), std::default_delete<std::byte[]>()));
}

/// A tensor labelled as a GPU's, in host memory.
Tensor device_tensor(const Extents& e, DType dtype) {
  return tensor_on(DeviceKind::cuda, e, dtype);
}

/// TPLAB_INJECT_FAULT set and armed for one test (worlds wrapped after this carry the plan);
/// unset and disarmed after it.
class InjectedFault {
 public:
  InjectedFault(const char* plan, const Comm& world)
      : world_rank_(world.rank()), world_size_(world.size()) {
    setenv("TPLAB_INJECT_FAULT", plan, 1);
    arm_fault_injection(world_rank_, world_size_);
  }
  ~InjectedFault() {
    unsetenv("TPLAB_INJECT_FAULT");
    arm_fault_injection(world_rank_, world_size_);
  }
  InjectedFault(const InjectedFault&) = delete;
  InjectedFault& operator=(const InjectedFault&) = delete;

 private:
  int world_rank_;
  int world_size_;
};

void write(Tensor& t, const std::function<double(std::int64_t)>& value) {
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = value(i);
    std::byte* at =
        static_cast<std::byte*>(t.data()) + i * static_cast<std::int64_t>(dtype_size(t.dtype()));
    if (t.dtype() == DType::f64) std::memcpy(at, &v, 8);
    if (t.dtype() == DType::f32) {
      const float f = static_cast<float>(v);
      std::memcpy(at, &f, 4);
    }
    if (t.dtype() == DType::bf16) {
      const Bf16Bits b = bf16_from_double(v);
      std::memcpy(at, &b, 2);
    }
  }
}

std::vector<double> read(const Tensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const std::byte* at = static_cast<const std::byte*>(t.data()) +
                          i * static_cast<std::int64_t>(dtype_size(t.dtype()));
    if (t.dtype() == DType::f64) std::memcpy(&v[i], at, 8);
    if (t.dtype() == DType::f32) {
      float f = 0;
      std::memcpy(&f, at, 4);
      v[i] = f;
    }
    if (t.dtype() == DType::bf16) {
      Bf16Bits b = 0;
      std::memcpy(&b, at, 2);
      v[i] = float_from_bf16(b);
    }
  }
  return v;
}

class DeviceStagedCommTest : public testing::TestWithParam<DType> {
 protected:
  DeviceStagedCommTest()
      : staging(std::make_shared<CountingStagingCopy>()), world(staged_world()) {}
  /// The staged transport, wrapped as every program wraps it.
  std::unique_ptr<Comm> staged_world() {
    return wrap_transport(DeviceStagedComm::world(staging), std::make_shared<CommCounters>());
  }
  Tensor filled(const Extents& e, const std::function<double(std::int64_t)>& value) {
    Tensor t = device_tensor(e, GetParam());
    write(t, value);
    return t;
  }
  std::shared_ptr<CountingStagingCopy> staging;
  std::unique_ptr<Comm> world;
};

TEST_P(DeviceStagedCommTest, AllReduceStagesAndSums) {
  const int p = world->size(), r = world->rank();
  Tensor x = filled({3, 2}, [&](std::int64_t i) { return static_cast<double>(r + i); });
  world->all_reduce(x);
  EXPECT_EQ(staging->to_host_calls, 1);
  EXPECT_EQ(staging->to_device_calls, 1);
  const auto v = read(x);
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(v[i], p * (p - 1) / 2 + p * i);
  Tensor m = filled({2}, [&](std::int64_t i) { return static_cast<double>(r * (i + 1)); });
  world->all_reduce(m, ReduceOp::max);
  EXPECT_EQ(read(m), (std::vector<double>{double(p - 1), double(2 * (p - 1))}));
}

TEST_P(DeviceStagedCommTest, AllGatherConcatenatesInRankOrder) {
  const int p = world->size(), r = world->rank();
  Tensor shard = filled({2, 3}, [&](std::int64_t i) { return 10.0 * r + i; });
  Tensor full = device_tensor({2 * p, 3}, GetParam());
  world->all_gather(shard, full);
  EXPECT_EQ(staging->to_host_calls, 1);  // the shard; the result needs room only
  EXPECT_EQ(staging->to_device_calls, 1);
  const auto v = read(full);
  for (int q = 0; q < p; ++q) {
    for (int i = 0; i < 6; ++i) EXPECT_EQ(v[q * 6 + i], 10.0 * q + i);
  }
}

TEST_P(DeviceStagedCommTest, ReduceScatterLeavesEachRankItsSlice) {
  const int p = world->size(), r = world->rank();
  Tensor full = filled({2 * p, 2}, [&](std::int64_t i) { return static_cast<double>(i + r); });
  Tensor shard = device_tensor({2, 2}, GetParam());
  world->reduce_scatter(full, shard);
  const auto v = read(shard);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], p * (r * 4 + i) + p * (p - 1) / 2);
}

TEST_P(DeviceStagedCommTest, BroadcastCopiesTheRootsTensor) {
  const int p = world->size(), r = world->rank();
  const int root = p - 1;
  Tensor x = filled({5}, [&](std::int64_t i) { return static_cast<double>(r * 10 + i); });
  world->broadcast(x, root);
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(read(x)[i], root * 10 + i);
  // the root sends only: nothing comes back to its tensor
  EXPECT_EQ(staging->to_device_calls, r == root ? 0 : 1);
}

TEST_P(DeviceStagedCommTest, ReduceSumsOnTheRootAndLeavesOthersAlone) {
  const int p = world->size(), r = world->rank();
  Tensor in = filled({4}, [&](std::int64_t i) { return static_cast<double>(r + i); });
  Tensor out = filled({4}, [](std::int64_t) { return -1.0; });
  world->reduce(in, out, 0);
  const auto v = read(out);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(v[i], r == 0 ? p * (p - 1) / 2 + p * i : -1.0);
  }
  // in place on the root
  Tensor same = filled({4}, [&](std::int64_t i) { return static_cast<double>(r + i); });
  world->reduce(same, same, 0);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(read(same)[i], r == 0 ? p * (p - 1) / 2 + p * i : r + i);
  }
}

TEST_P(DeviceStagedCommTest, CountsLikeMpiComm) {
  auto mpi = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice cpu;
  const int p = world->size();
  Tensor x = filled({8, 4}, [](std::int64_t i) { return static_cast<double>(i); });
  Tensor shard = device_tensor({8, 4}, GetParam());
  Tensor full = device_tensor({8 * p, 4}, GetParam());
  world->all_reduce(x);
  world->all_gather(shard, full);
  Tensor hx = cpu.zeros({8, 4}, DType::f32);
  Tensor hshard = cpu.zeros({8, 4}, DType::f32);
  Tensor hfull = cpu.zeros({8 * p, 4}, DType::f32);
  mpi->all_reduce(hx);
  mpi->all_gather(hshard, hfull);
  const auto staged = world->counters().snapshot();
  const auto direct = mpi->counters().snapshot();
  ASSERT_EQ(staged.size(), direct.size());
  const double bytes_ratio = static_cast<double>(dtype_size(GetParam())) / 4.0;
  for (std::size_t i = 0; i < staged.size(); ++i) {
    EXPECT_EQ(staged[i].collective, direct[i].collective);
    EXPECT_EQ(staged[i].calls, direct[i].calls);
    EXPECT_EQ(staged[i].elements, direct[i].elements);
    EXPECT_EQ(staged[i].bytes, static_cast<std::int64_t>(direct[i].bytes * bytes_ratio));
  }
}

TEST_P(DeviceStagedCommTest, SubgroupsStageToo) {
  const int p = world->size(), r = world->rank();
  auto half = world->split(r % 2, r, "half");
  EXPECT_EQ(half->transport(), "mpi-staged");
  Tensor x = filled({3}, [&](std::int64_t) { return 1.0; });
  half->all_reduce(x);
  const int members = (p + 1 - r % 2) / 2;
  for (double v : read(x)) EXPECT_EQ(v, members);
  EXPECT_EQ(staging->to_host_calls, 1);
}

TEST_P(DeviceStagedCommTest, AnInjectedNanReachesDeviceMemory) {
  const int p = world->size(), r = world->rank();
  const InjectedFault fault("rank=0,collective=1,kind=nan", *world);
  auto injected = staged_world();
  Tensor before = filled({4}, [](std::int64_t) { return 1.0; });
  Tensor hit = filled({4}, [](std::int64_t) { return 1.0; });
  injected->all_reduce(before);  // collective #0: left alone
  injected->all_reduce(hit);     // collective #1: rank 0's result gets a NaN in its first element
  EXPECT_EQ(read(before), std::vector<double>(4, p));
  const auto v = read(hit);
  EXPECT_EQ(std::isnan(v[0]), r == 0) << v[0];
  for (std::size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i], p);
}

TEST_P(DeviceStagedCommTest, AnInjectedNanReachesAStartedCollectivesResult) {
  const int p = world->size(), r = world->rank();
  const InjectedFault fault("rank=0,collective=0,kind=nan", *world);
  auto injected = staged_world();
  Tensor shard = filled({2}, [&](std::int64_t) { return static_cast<double>(r); });
  Tensor full = device_tensor({2 * p}, GetParam());
  injected->start_all_gather(shard, full).wait();
  const auto v = read(full);
  EXPECT_EQ(std::isnan(v[0]), r == 0) << v[0];
  for (std::size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i], static_cast<double>(i / 2));
}

TEST_P(DeviceStagedCommTest, StartedTransfersMoveTheBitsMpiCommMoves) {
  const int p = world->size(), r = world->rank();
  if (p == 1) GTEST_SKIP() << "a transfer needs two ranks";
  const int next = (r + 1) % p, previous = (r + p - 1) % p;
  // A ring, every rank sending before any receives, past MPI's eager limit: a started send
  // that blocked until its receive was posted would hang here.
  const Extents e{128, 64};
  const auto value = [](int from) {
    return [from](std::int64_t i) { return static_cast<double>((37 * from + i) % 251); };
  };
  Tensor sent = filled(e, value(r));
  Tensor received = filled(e, [](std::int64_t) { return -1.0; });
  CommRequest sending = world->start_send(sent, next);
  CommRequest receiving = world->start_recv(received, previous);
  EXPECT_EQ(staging->to_device_calls, 0) << "a receive is copied back when it is waited for";
  receiving.wait();
  sending.wait();
  EXPECT_EQ(staging->to_host_calls, 1);  // the send's copy to the host
  EXPECT_EQ(staging->to_device_calls, 1);
  // The same ring of host tensors over MpiComm: the same bits arrive, bf16 as it is.
  auto mpi = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  Tensor host_sent = tensor_on(DeviceKind::cpu, e, GetParam());
  write(host_sent, value(r));
  Tensor direct = tensor_on(DeviceKind::cpu, e, GetParam());
  CommRequest direct_sending = mpi->start_send(host_sent, next);
  mpi->recv(direct, previous);
  direct_sending.wait();
  EXPECT_EQ(std::memcmp(received.data(), direct.data(), direct.bytes()), 0);
  EXPECT_EQ(read(received), read(filled(e, value(previous))));
}

TEST_P(DeviceStagedCommTest, BlockingTransfersStageOnceAndCountTheTensorsBytes) {
  const int r = world->rank(), other = r ^ 1;
  if (other >= world->size()) GTEST_SKIP() << "rank " << r << " has no partner";
  const Tensor sent = filled({3, 5}, [&](std::int64_t i) { return 10.0 * r + i; });
  Tensor received = device_tensor({3, 5}, GetParam());
  // Even ranks send first, odd ones receive first.
  if (r % 2 == 0) {
    world->send(sent, other);
    world->recv(received, other);
  } else {
    world->recv(received, other);
    world->send(sent, other);
  }
  EXPECT_EQ(staging->to_host_calls, 1);
  EXPECT_EQ(staging->to_device_calls, 1);
  const auto v = read(received);
  for (std::int64_t i = 0; i < 15; ++i) EXPECT_EQ(v[i], 10.0 * other + i);
  const auto counts = world->counters().snapshot();
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(collective_form(counts[0].collective, counts[0].op, counts[0].root),
            "send(to " + std::to_string(other) + ")");
  EXPECT_EQ(collective_form(counts[1].collective, counts[1].op, counts[1].root),
            "recv(from " + std::to_string(other) + ")");
  for (const CollectiveCount& c : counts) {
    EXPECT_EQ(c.elements, 15);
    EXPECT_EQ(c.bytes, 15 * static_cast<std::int64_t>(dtype_size(GetParam())))
        << "the tensor's own bytes: bf16 is not widened";
  }
}

TEST(DeviceStagedComm, AnInjectedNanReachesHostBf16) {
  auto transport = DeviceStagedComm::world(std::make_shared<CountingStagingCopy>());
  const InjectedFault fault("rank=0,collective=0,kind=nan", *transport);
  auto world = wrap_transport(std::move(transport), std::make_shared<CommCounters>());
  Tensor x = tensor_on(DeviceKind::cpu, {3}, DType::bf16);
  write(x, [](std::int64_t) { return 2.0; });
  world->all_reduce(x);
  const auto v = read(x);
  EXPECT_EQ(std::isnan(v[0]), world->rank() == 0) << v[0];
  EXPECT_EQ(v[2], 2.0 * world->size());
}

TEST(DeviceStagedComm, HostTensorsSkipTheStaging) {
  auto staging = std::make_shared<CountingStagingCopy>();
  auto world = DeviceStagedComm::world(staging);
  CpuDevice cpu;
  Tensor x = cpu.empty({4}, DType::f64);
  cpu.fill(x, 2.0);
  world->all_reduce(x);
  EXPECT_EQ(staging->to_host_calls + staging->to_device_calls, 0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(x.data_as<double>()[i], 2.0 * world->size());
  if (world->size() == 1) return;
  const int r = world->rank();
  Tensor y = tensor_on(DeviceKind::cpu, {3}, DType::bf16);
  write(y, [&](std::int64_t i) { return r == 0 ? 3.0 + i : -1.0; });
  if (r == 0) world->start_send(y, 1).wait();
  if (r == 1) world->start_recv(y, 0).wait();
  EXPECT_EQ(staging->to_host_calls + staging->to_device_calls, 0);
  if (r <= 1) {
    EXPECT_EQ(read(y), (std::vector<double>{3, 4, 5}));
  }
}

std::string dtype_label(const testing::TestParamInfo<DType>& param) {
  return std::string(dtype_name(param.param));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, DeviceStagedCommTest,
                         testing::Values(DType::f64, DType::f32, DType::bf16), dtype_label);

}  // namespace
}  // namespace tplab
