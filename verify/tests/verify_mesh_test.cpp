// 2D and 2.5D against the reference at the world size of the mpiexec (4, 8 or 9 ranks).
#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "harness.hpp"

namespace tplab::verify {
namespace {

class VerifyMesh : public testing::Test {
 protected:
  VerifyMesh() : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())) {}
  /// 12 sequences and 12 heads split 2, 3 and 4 ways; hidden 72 splits 2 and 3 ways.
  RunConfig config(const std::string& scheme, DType dtype, bool exact, int depth = 0) const {
    RunConfig c;
    c.scheme = scheme;
    c.options.depth = depth;
    c.shape = {12, 4, 72, 12};
    c.dtype = dtype;
    c.exact = exact;
    c.seed = 5;
    return c;
  }
  bool is_square() const { return world->size() == 4 || world->size() == 9; }
  void expect_agreement(const RunResult& r) {
    EXPECT_TRUE(r.pass) << r.config.scheme << " " << dtype_name(r.config.dtype);
    for (const auto& t : r.tensors) {
      EXPECT_TRUE(t.pass) << t.name;
      EXPECT_TRUE(t.replicas_differ.empty()) << t.name << ": " << t.replicas_differ;
      if (r.config.exact) {
        EXPECT_EQ(t.max_abs, 0.0) << t.name;
      } else if (r.config.dtype == DType::f64 && zero_gradient(t.name) == nullptr) {
        EXPECT_LE(t.rel_l2, 1e-12) << t.name;
      }
    }
  }
  CpuDevice device;
  std::unique_ptr<Comm> world;
};

TEST_F(VerifyMesh, TwoDimensionalAgreesInEveryMode) {
  if (!is_square()) GTEST_SKIP() << "2D needs a square world";
  for (DType dtype : {DType::f64, DType::f32}) {
    for (bool exact : {false, true})
      expect_agreement(run_verification(*world, device, config("2d", dtype, exact)));
  }
}

TEST_F(VerifyMesh, TwoAndAHalfDimensionalAgreesInEveryMode) {
  if (world->size() != 8 && world->size() != 4) GTEST_SKIP() << "runs at 4 (d=1) and 8 (d=2)";
  for (DType dtype : {DType::f64, DType::f32}) {
    for (bool exact : {false, true}) {
      expect_agreement(run_verification(*world, device, config("2.5d", dtype, exact)));
    }
  }
}

TEST_F(VerifyMesh, DepthOneIsBitwiseTwoDimensional) {
  if (world->size() != 4) GTEST_SKIP() << "compares q=2 meshes";
  const RunResult two = run_verification(*world, device, config("2d", DType::f64, false));
  const RunResult flat = run_verification(*world, device, config("2.5d", DType::f64, false, 1));
  ASSERT_EQ(two.tensors.size(), flat.tensors.size());
  for (std::size_t t = 0; t < two.tensors.size(); ++t) {
    EXPECT_EQ(two.tensors[t].hash, flat.tensors[t].hash) << two.tensors[t].name;
  }
}

TEST_F(VerifyMesh, DepthGradientsAreIdenticalReplicas) {
  if (world->size() != 8) GTEST_SKIP() << "needs d=2";
  const RunResult r = run_verification(*world, device, config("2.5d", DType::f64, false, 2));
  for (const auto& t : r.tensors) {
    if (t.name.starts_with("d_w")) {
      EXPECT_EQ(t.replicas, 2) << t.name << ": weight blocks repeat over depth";
    }
    EXPECT_TRUE(t.replicas_differ.empty()) << t.name;
  }
}

TEST_F(VerifyMesh, LeavingOutTheDepthAllReduceIsCaught) {
  if (world->size() != 8) GTEST_SKIP() << "needs d=2";
  // Gradients are reduced over depth in name order; drop the one of d_b1 (the first), then of
  // d_wo (the fourteenth), and see verify fail and the replicas disagree.
  for (int dropped : {0, 13}) {
    FaultyComm faulty(*world, Fault{"depth", dropped});
    const RunResult r = run_verification(faulty, device, config("2.5d", DType::f64, false, 2));
    EXPECT_FALSE(r.pass) << "dropping depth all-reduce " << dropped << " went unnoticed";
    int differing = 0;
    for (const auto& t : r.tensors) {
      if (t.replicas_differ.empty()) continue;
      ++differing;
      EXPECT_GT(t.replica_difference, 0.0) << t.name;
      EXPECT_NE(t.replicas_differ.find("replicated over k"), std::string::npos)
          << t.replicas_differ;
    }
    EXPECT_EQ(differing, 1) << "exactly the gradient left unreduced has unequal replicas";
    world->barrier();
  }
}

TEST_F(VerifyMesh, LeavingOutASummaReduceOrAColumnAllReduceIsCaught) {
  if (world->size() != 4) GTEST_SKIP() << "a q=2 mesh";
  for (const char* group : {"row", "column"}) {
    FaultyComm faulty(*world, Fault{group, 0});
    const RunResult r = run_verification(faulty, device, config("2d", DType::f64, false));
    EXPECT_FALSE(r.pass) << "dropping the first all-reduce on " << group;
    world->barrier();
  }
}

TEST_F(VerifyMesh, OneBroadcastTooManyFailsTheRunThoughEveryTensorAgrees) {
  if (world->size() != 4) GTEST_SKIP() << "a q=2 mesh";
  // A broadcast run twice gives the same numbers; only the counters see the extra call.
  FaultyComm faulty(*world, Fault{"row", 0, Collective::broadcast, Fault::Action::repeat});
  const RunResult r = run_verification(faulty, device, config("2d", DType::f64, false));
  for (const auto& t : r.tensors) EXPECT_TRUE(t.pass) << t.name;
  EXPECT_FALSE(r.properties.holds(Property::comm));
  EXPECT_FALSE(r.pass) << "a run whose communication differs from the model fails";
  bool found = false;
  for (const auto& row : r.comm.forward) {
    if (row.group != "row" || row.collective != Collective::broadcast) continue;
    EXPECT_EQ(row.calls, row.model_calls + (row.root == 0 ? 1 : 0)) << "from root " << row.root;
    found = true;
  }
  EXPECT_TRUE(found);
  world->barrier();
}

TEST_F(VerifyMesh, ABroadcastFromTheWrongRootDiffersFromTheCostModel) {
  if (world->size() != 4) GTEST_SKIP() << "a q=2 mesh";
  // SUMMA's first broadcast on the row sends X(i,0) from root 0; from root 1 instead, as many
  // calls and elements cross the row as the model predicts, but one from the other root.
  FaultyComm faulty(*world, Fault{"row", 0, Collective::broadcast, Fault::Action::next_root});
  const RunResult r = run_verification(faulty, device, config("2d", DType::f64, false));
  EXPECT_FALSE(r.properties.holds(Property::comm)) << "the counters see the root";
  EXPECT_FALSE(r.pass);
  std::int64_t calls = 0, model_calls = 0;
  for (const auto& row : r.comm.forward) {
    if (row.group != "row" || row.collective != Collective::broadcast) continue;
    EXPECT_EQ(row.calls, row.model_calls + (row.root == 0 ? -1 : 1)) << "from root " << row.root;
    calls += row.calls;
    model_calls += row.model_calls;
  }
  EXPECT_EQ(calls, model_calls) << "without the root, the counts agree with the model";
  world->barrier();
}

TEST_F(VerifyMesh, RefusesWorldSizesThatDoNotFit) {
  EXPECT_THROW(run_verification(*world, device, config("2.5d", DType::f64, false, 3)), UsageError);
  if (!is_square()) {
    EXPECT_THROW(run_verification(*world, device, config("2d", DType::f64, false)), UsageError);
  }
}

}  // namespace
}  // namespace tplab::verify
