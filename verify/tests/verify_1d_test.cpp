// The 1D block and linear pair against the reference, at the world size of the mpiexec.
#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"

namespace tplab::verify {
namespace {

class Verify1D : public testing::Test {
 protected:
  Verify1D() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}
  RunResult run(DType dtype, bool exact, BlockShape shape = {2, 8, 32, 4}) {
    RunConfig c;
    c.scheme = "1d";
    c.shape = shape;
    c.dtype = dtype;
    c.exact = exact;
    c.seed = 7;
    return run_verification(*world, device, c);
  }
  CpuDevice device;
  std::unique_ptr<Comm> world;
};

TEST_F(Verify1D, F64BlockAgreesToRoundOff) {
  const RunResult r = run(DType::f64, false);
  EXPECT_TRUE(r.pass);
  ASSERT_EQ(r.tensors.size(), 18u);
  for (const auto& t : r.tensors) {
    EXPECT_TRUE(t.pass) << t.name;
    EXPECT_EQ(t.nonfinite, 0) << t.name;
    if (zero_gradient(t.name) != nullptr) {
      EXPECT_LE(t.max_abs, 1e-13) << t.name << " is zero in exact arithmetic";
    } else {
      EXPECT_LE(t.rel_l2, 1e-12) << t.name;
    }
  }
}

TEST_F(Verify1D, F32BlockAgreesWithinItsTolerance) {
  const RunResult r = run(DType::f32, false);
  EXPECT_TRUE(r.pass);
  for (const auto& t : r.tensors) {
    EXPECT_TRUE(t.pass) << t.name;
    EXPECT_GT(t.max_abs, 0.0) << t.name << ": f32 against f64 cannot be exact";
  }
}

TEST_F(Verify1D, ExactLinearPairHasNoErrorAtAll) {
  for (DType dtype : {DType::f64, DType::f32}) {
    const RunResult r = run(dtype, true);
    EXPECT_TRUE(r.pass) << dtype_name(dtype);
    ASSERT_EQ(r.tensors.size(), 6u);
    for (const auto& t : r.tensors) EXPECT_EQ(t.max_abs, 0.0) << t.name << " " << dtype_name(dtype);
  }
}

TEST_F(Verify1D, CommunicatesTwoAllReducesEachWay) {
  const RunResult r = run(DType::f64, false);
  if (world->size() == 1) {
    EXPECT_TRUE(r.comm_forward.empty());
    EXPECT_TRUE(r.comm_backward.empty());
    return;
  }
  for (const auto* phase : {&r.comm_forward, &r.comm_backward}) {
    ASSERT_EQ(phase->size(), 1u);
    const CollectiveCount& c = phase->front();
    EXPECT_EQ(c.collective, Collective::all_reduce);
    EXPECT_EQ(c.group, "tp");
    EXPECT_EQ(c.calls, 2);
    EXPECT_EQ(c.elements, 2 * 16 * 32);  // two [m, h] activations, m = 16 tokens, h = 32
  }
}

TEST_F(Verify1D, RefusesAWorldSizeThatSplitsHeadsOnEveryRank) {
  if (world->size() != 4) GTEST_SKIP() << "needs 4 ranks";
  EXPECT_THROW(run(DType::f64, false, {2, 8, 36, 6}), UsageError);
}

}  // namespace
}  // namespace tplab::verify
