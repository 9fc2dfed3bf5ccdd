// The checks can fail: a dropped all-reduce, a wrong value and a NaN are each reported.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "comm/mpi_comm.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "harness.hpp"
#include "host_array.hpp"
#include "tensor_check.hpp"

namespace tplab::verify {
namespace {

TEST(ChecksFail, ADroppedAllReduceIsCaught) {
  auto world = MpiComm::world(std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank has nothing to reduce";
  CpuDevice device;
  RunConfig c;
  c.shape = {2, 8, 32, 4};
  // Forward issues all-reduces 0 (attention's g) and 1 (MLP's g); backward 2 (MLP's f) and
  // 3 (attention's f). Dropping any one must be caught.
  for (int dropped = 0; dropped < 4; ++dropped) {
    FaultyComm faulty(*world, Fault{"", dropped});
    const RunResult r = run_verification(faulty, device, c);
    EXPECT_FALSE(r.pass) << "dropping all-reduce " << dropped << " went unnoticed";
    world->barrier();
  }
}

TEST(ChecksFail, ADroppedAllReduceDiffersFromTheCostModel) {
  auto world = MpiComm::world(std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank has nothing to reduce";
  CpuDevice device;
  RunConfig c;
  c.shape = {2, 8, 32, 4};
  FaultyComm faulty(*world, Fault{"tp", 1});  // the MLP's g, in forward
  const RunResult r = run_verification(faulty, device, c);
  EXPECT_FALSE(r.comm_match);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.comm_mismatch_ranks.size(), static_cast<std::size_t>(world->size()))
      << "every rank dropped the call";
  ASSERT_EQ(r.comm.forward.size(), 1u);
  const model::CommComparison& row = r.comm.forward.front();
  EXPECT_EQ(row.calls, 1);
  EXPECT_EQ(row.model_calls, 2);
  EXPECT_EQ(row.elements, 16 * 32);
  EXPECT_EQ(row.model_elements, 2 * 16 * 32);
  EXPECT_TRUE(r.comm.backward.front().matches()) << "backward lost nothing";
  world->barrier();
}

TEST(ChecksFail, AWrongElementFailsAndIsLocated) {
  const HostArray ref{{2, 3}, {1, 2, 3, 4, 5, 6}};
  std::vector<double> got = ref.values;
  got[4] += 1e-6;
  const BlockRange whole{0, 2, 0, 3};
  TensorCheck c =
      check_shard("t", ref, whole, got, tolerance_for(DType::f64, false), rms(ref.values));
  c = [&] {
    TensorCheck merged = c;
    merged.sum_sq_diff = merged.sum_sq_ref = 0;
    merged.max_abs = merged.share = 0;
    merged.worst_index = -1;
    merge(merged, pack(c));
    finish(merged);
    return merged;
  }();
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.worst_index, 4);
  EXPECT_DOUBLE_EQ(c.worst_ref, 5.0);
}

TEST(ChecksFail, NanNeverPasses) {
  const HostArray ref{{4}, {1, 2, 3, 4}};
  std::vector<double> got = ref.values;
  got[2] = std::numeric_limits<double>::quiet_NaN();
  // even a tolerance that would accept anything finite
  const Tolerance generous{1e300, 1e300, 1e300, "test"};
  TensorCheck c = check_shard("t", ref, {0, 1, 0, 4}, got, generous, 1.0);
  finish(c);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.nonfinite, 1);
  EXPECT_EQ(c.first_nonfinite, 2);
}

TEST(ChecksFail, ExactToleranceRejectsOneUlp) {
  const HostArray ref{{2}, {3, 4}};
  std::vector<double> got = {3, std::nextafter(4.0, 5.0)};
  TensorCheck c = check_shard("t", ref, {0, 1, 0, 2}, got, tolerance_for(DType::f32, true), 1.0);
  finish(c);
  EXPECT_FALSE(c.pass);
}

}  // namespace
}  // namespace tplab::verify
