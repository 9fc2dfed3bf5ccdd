// The checks can fail: a dropped all-reduce, a wrong value and a NaN are each reported.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "harness.hpp"
#include "host_array.hpp"
#include "report.hpp"
#include "tensor_check.hpp"

namespace tplab::verify {
namespace {

TEST(ChecksFail, ADroppedAllReduceIsCaught) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
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
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank has nothing to reduce";
  CpuDevice device;
  RunConfig c;
  c.shape = {2, 8, 32, 4};
  FaultyComm faulty(*world, Fault{"tp", 1});  // the MLP's g, in forward
  const RunResult r = run_verification(faulty, device, c);
  EXPECT_FALSE(r.properties.holds(Property::comm));
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.properties.ranks_where_not(Property::comm).size(),
            static_cast<std::size_t>(world->size()))
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

TEST(ChecksFail, AMaxWhereASumIsMeantDiffersFromTheCostModel) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank has nothing to reduce";
  CpuDevice device;
  RunConfig c;
  c.shape = {2, 8, 32, 4};
  FaultyComm faulty(*world, Fault{"tp", 0, Collective::all_reduce, Fault::Action::as_max});
  const RunResult r = run_verification(faulty, device, c);
  EXPECT_FALSE(r.properties.holds(Property::comm)) << "the counters see the reduction";
  ASSERT_EQ(r.comm.forward.size(), 2u) << "a sum row and a max row";
  const model::CommComparison& sum = r.comm.forward[0];
  const model::CommComparison& max = r.comm.forward[1];
  EXPECT_EQ(sum.op, ReduceOp::sum);
  EXPECT_EQ(sum.calls, 1);
  EXPECT_EQ(sum.model_calls, 2);
  EXPECT_EQ(max.op, ReduceOp::max);
  EXPECT_EQ(max.calls, 1);
  EXPECT_EQ(max.model_calls, 0);
  EXPECT_EQ(r.comm.measured_elements(), r.comm.model_elements())
      << "without the reduction, the counts agree with the model";
  world->barrier();
}

TEST(ChecksFail, ANanInTheFindingsOneRankGatheredFailsTheRunOnEveryRank) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  RunConfig c;
  c.shape = {2, 8, 32, 4};
  // 1D's collectives are all-reduces on "tp": the first all-gather on "world" is the one that
  // gathers every rank's findings. Its first element, rank 0's max_abs of y, arrives as a NaN
  // on the last rank alone, which std::max would drop.
  const int poisoned = world->size() - 1;
  FaultyComm faulty(*world,
                    Fault{"world", 0, Collective::all_gather, Fault::Action::poison, poisoned});
  const RunResult r = run_verification(faulty, device, c);
  EXPECT_FALSE(r.pass) << "a NaN in the checker's own data passed on rank " << world->rank();
  ASSERT_FALSE(r.checker_faults.empty());
  if (world->rank() == poisoned) {
    EXPECT_EQ(r.tensors.front().checker_fault, "rank 0's max_abs is nan");
    EXPECT_FALSE(r.tensors.front().pass);
    EXPECT_EQ(r.checker_faults.front(), "y: rank 0's max_abs is nan");
  } else {
    EXPECT_TRUE(r.tensors.front().pass) << "this rank's copy arrived intact";
    EXPECT_EQ(r.checker_faults.front(),
              fmt::format("rank {} found 1 value(s) of the checker's data broken, the first in "
                          "the findings of y",
                          poisoned));
  }
  world->barrier();
}

TEST(ChecksFail, AVerdictThatArrivesAsNanFailsTheRun) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  RunConfig c;
  c.shape = {2, 8, 32, 4};
  // The second all-gather on "world" (after the findings') gathers the verdicts: rank 0's
  // first field, whether its collectives match the model (Property::comm), arrives as a NaN on
  // rank 0, which compared it with 0 and took it for a match.
  FaultyComm faulty(*world, Fault{"world", 1, Collective::all_gather, Fault::Action::poison, 0});
  const RunResult r = run_verification(faulty, device, c);
  if (world->rank() == 0) {
    EXPECT_FALSE(r.pass);
    ASSERT_EQ(r.checker_faults.size(), 1u);
    EXPECT_EQ(r.checker_faults.front(), "rank 0's verdict arrived as nan 1 1 1 0 -1");
  } else {
    EXPECT_TRUE(r.pass) << "this rank's copy of the verdicts arrived intact";
  }
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
    merge(merged, pack(c), true, 0);
    finish(merged);
    return merged;
  }();
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.worst_index, 4);
  EXPECT_DOUBLE_EQ(c.worst_ref, 5.0);
}

TEST(ChecksFail, UnderAnExactToleranceTheFarthestOffElementIsTheWorst) {
  const HostArray ref{{2, 3}, {1, 2, 3, 4, 5, 6}};
  const Tolerance exact{0.0, 0.0, 0.0, "exact"};
  // Two ranks' shards (row 0 and row 1): every wrong element uses an infinite share of a zero
  // tolerance, so the one farthest from the reference is named, wherever it lies.
  const std::vector<double> row0 = {1, 3, 3};    // off by 1 at index 1
  const std::vector<double> row1 = {4, 6, -15};  // off by 1 at index 4, by 21 at index 5
  const TensorCheck first = check_shard("t", ref, {0, 1, 0, 3}, row0, exact, 1.0);
  const TensorCheck second = check_shard("t", ref, {1, 1, 0, 3}, row1, exact, 1.0);
  for (const TensorCheck* later : {&second, &first}) {
    TensorCheck merged = later == &second ? first : second;
    merge(merged, pack(*later), true, 0);
    finish(merged);
    EXPECT_FALSE(merged.pass);
    EXPECT_EQ(merged.worst_index, 5);
    EXPECT_DOUBLE_EQ(merged.worst_got, -15.0);
    EXPECT_DOUBLE_EQ(merged.max_abs, 21.0);
  }
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

TEST(ChecksFail, ANanInAReplicatedBlockCountsOnceAndUsesNoShare) {
  // Every rank holds the whole tensor, with the same NaN: one NaN, not one per replica.
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  const HostArray ref{{2, 3}, {1, 2, 3, 4, 5, 6}};
  const TensorPlacement everywhere = replicated("t", ref.extents, world->size());
  ShardToCheck shard{"t", &ref, &everywhere, ref.values, tolerance_for(DType::f64, false), 1.0};
  shard.got[4] = std::numeric_limits<double>::quiet_NaN();
  const std::vector<TensorCheck> checks = compare_shards(*world, {shard});
  ASSERT_EQ(checks.size(), 1u);
  const TensorCheck& c = checks.front();
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.replicas, world->size());
  EXPECT_EQ(c.nonfinite, 1) << "counted once per block, not once per replica";
  EXPECT_EQ(c.first_nonfinite, 4);
  EXPECT_EQ(tolerance_used_text(c.share, c.nonfinite > 0), "NaN/Inf")
      << "a NaN is not some share of the tolerance (it showed as 0%)";
  EXPECT_TRUE(std::isinf(c.share));
  world->barrier();
}

TEST(ChecksFail, TheShareOfTheToleranceReadsAsANumberAtAnySize) {
  EXPECT_EQ(tolerance_used_text(0.034, false), "3%");
  EXPECT_EQ(tolerance_used_text(2.4, false), "240%");
  EXPECT_EQ(tolerance_used_text(99.994, false), "9999%");
  // no cap at 99999%, which read like a bug: a large share is written as what it is
  EXPECT_EQ(tolerance_used_text(2345.0, false), "2.3e+05%");
  EXPECT_EQ(tolerance_used_text(INFINITY, false), "inf");
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
