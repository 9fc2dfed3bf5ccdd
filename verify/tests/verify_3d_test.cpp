/// @file
/// The 3D block and linear pair against the reference, at the world size of the mpiexec
/// (1, 8 or 27 ranks): agreement, the memory trade, the cost model, and a misrouted collective.
#include <gtest/gtest.h>

#include <cstring>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "grid/grid_3d.hpp"
#include "harness.hpp"
#include "kept_bytes.hpp"
#include "misrouted_comm.hpp"
#include "problem.hpp"
#include "registry/make_scheme.hpp"

namespace tplab::verify {
namespace {

/// One module built and run directly (not through the harness), so that its tensors can be
/// compared bit by bit.
struct ModuleRun {
  TensorMap outputs;  ///< y, dx and every gradient shard
  std::size_t saved_bytes = 0;
};

class Verify3D : public testing::Test {
 protected:
  Verify3D()
      : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())),
        q(cube_side(world->size())) {}

  void SetUp() override {
    if (q == 0) GTEST_SKIP() << "3D needs a cube number of ranks";
  }

  /// Every rank's m/q^2 tokens are two whole sequences: attention is local.
  BlockShape whole_sequences() const { return {2 * q * q, 4, 8 * q * q, 2 * q}; }
  /// Every rank's 4 tokens are part of a sequence of 2 q^2: attention gathers keys and values.
  BlockShape cut_sequences() const { return {2, 2 * q * q, 8 * q * q, 2 * q}; }

  RunResult run(DType dtype, bool exact, const BlockShape& shape, bool regather = false) {
    return run_through(*world, dtype, exact, shape, regather);
  }

  RunResult run_through(Comm& comm, DType dtype, bool exact, const BlockShape& shape,
                        bool regather) {
    RunConfig c;
    c.scheme = "3d";
    c.options.regather = regather;
    c.shape = shape;
    c.dtype = dtype;
    c.exact = exact;
    c.seed = 7;
    return run_verification(comm, device, c);
  }

  ModuleRun run_module(Workload workload, const BlockShape& shape, bool regather) {
    const auto scheme = make_scheme("3d", SchemeOptions{.depth = 1, .regather = regather});
    const HostArrays inputs = make_inputs(shape, 7, workload, Values::real);
    const auto placements = scheme->placements(world->size(), shape, workload);
    const auto shard = [&](const std::string& name) {
      return upload_shard(device, inputs.at(name), find_placement(placements, name), world->rank(),
                          DType::f64);
    };
    TensorMap parameters;
    for (const auto& entry : inputs) {
      if (is_parameter(entry.first)) parameters.emplace(entry.first, shard(entry.first));
    }
    auto module = scheme->make_module(*world, device, shape, workload, std::move(parameters));
    ModuleRun r;
    Tensor x = shard("x");
    const KeptBytesProbe probe(device, x);
    const Tensor y = module->forward(x);
    x = Tensor();
    r.saved_bytes = probe.kept_bytes() - y.bytes();  // y is kept here, to compare its bits
    r.outputs.emplace("y", y);
    r.outputs.emplace("dx", module->backward(shard("dy")));
    for (const auto& [name, gradient] : module->gradients()) r.outputs.emplace(name, gradient);
    return r;
  }

  CpuDevice device;
  std::unique_ptr<Comm> world;
  std::int64_t q;
};

void expect_round_off_only(const RunResult& r) {
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

TEST_F(Verify3D, F64BlockAgreesToRoundOff) {
  expect_round_off_only(run(DType::f64, false, whole_sequences()));
  expect_round_off_only(run(DType::f64, false, cut_sequences()));
}

TEST_F(Verify3D, F32BlockAgreesWithinItsTolerance) {
  for (const BlockShape& shape : {whole_sequences(), cut_sequences()}) {
    const RunResult r = run(DType::f32, false, shape);
    EXPECT_TRUE(r.pass) << to_string(shape);
    for (const auto& t : r.tensors) {
      EXPECT_TRUE(t.pass) << t.name;
      EXPECT_GT(t.max_abs, 0.0) << t.name << ": f32 against f64 cannot be exact";
    }
  }
}

TEST_F(Verify3D, ExactLinearPairHasNoErrorAtAll) {
  for (DType dtype : {DType::f64, DType::f32}) {
    for (bool regather : {false, true}) {
      const RunResult r = run(dtype, true, whole_sequences(), regather);
      EXPECT_TRUE(r.pass) << dtype_name(dtype);
      ASSERT_EQ(r.tensors.size(), 6u);
      for (const auto& t : r.tensors) {
        EXPECT_EQ(t.max_abs, 0.0) << t.name << " " << dtype_name(dtype) << " regather " << regather;
      }
    }
  }
}

TEST_F(Verify3D, RegatheringGivesTheSameBitsAndKeepsLess) {
  for (Workload workload : {Workload::block, Workload::linear_pair}) {
    const ModuleRun kept = run_module(workload, cut_sequences(), false);
    const ModuleRun regathered = run_module(workload, cut_sequences(), true);
    ASSERT_EQ(kept.outputs.size(), regathered.outputs.size());
    for (const auto& [name, tensor] : kept.outputs) {
      const Tensor& other = regathered.outputs.at(name);
      ASSERT_EQ(tensor.extents(), other.extents()) << name;
      EXPECT_EQ(std::memcmp(tensor.data(), other.data(), tensor.bytes()), 0)
          << name << " differs when X~ and W~ are gathered again";
    }
    EXPECT_LT(regathered.saved_bytes, kept.saved_bytes);
  }
}

TEST_F(Verify3D, RegatheringThatKeepsTheGatheredWeightAnywayFailsTheRun) {
  if (q == 1) GTEST_SKIP() << "a group of one rank gathers nothing";
  const BlockShape shape = whole_sequences();
  const RunResult honest = run(DType::f64, false, shape, true);
  EXPECT_TRUE(honest.properties.holds(Property::kept));
  EXPECT_TRUE(honest.pass);
  world->barrier();
  // The first linear's W~, which regathering drops after forward, held on to: the layer keeps
  // what it says it drops, and the device's account of its storage shows it.
  FaultyComm keeps(*world, Fault{"weight", 0, Collective::all_gather, Fault::Action::hoard});
  const RunResult r = run_through(keeps, DType::f64, false, shape, true);
  for (const auto& t : r.tensors) EXPECT_TRUE(t.pass) << t.name << ": only memory differs";
  EXPECT_TRUE(r.properties.holds(Property::comm));
  EXPECT_FALSE(r.properties.holds(Property::kept))
      << "kept " << r.saved_bytes << " bytes, model " << r.saved_bytes_model;
  EXPECT_EQ(r.properties.ranks_where_not(Property::kept).size(),
            static_cast<std::size_t>(world->size()));
  EXPECT_FALSE(r.pass);
  // Wq~ [h/q, h/q] in f64
  EXPECT_EQ(r.saved_bytes - honest.saved_bytes,
            static_cast<std::size_t>(shape.h * shape.h / (q * q)) * sizeof(double));
  world->barrier();
}

TEST_F(Verify3D, LinearPairKeepsTheGatheredCopiesOrOnlyTheShards) {
  const BlockShape shape = whole_sequences();
  const std::int64_t m = shape.tokens(), h = shape.h;
  // kept: X~ [m/q, h/q] and W1~ [h/q, 4h/q] of fc1, H~ [m/q, 4h/q] and W2~ [4h/q, h/q] of fc2
  const std::int64_t gathered = (m * h + 4 * h * h + 4 * m * h + 4 * h * h) / (q * q);
  // regathered: X [m/q^2, h/q] and H [m/q^2, 4h/q]
  const std::int64_t shards = (m * h + 4 * m * h) / (q * q * q);
  EXPECT_EQ(run_module(Workload::linear_pair, shape, false).saved_bytes,
            static_cast<std::size_t>(gathered) * sizeof(double));
  EXPECT_EQ(run_module(Workload::linear_pair, shape, true).saved_bytes,
            static_cast<std::size_t>(shards) * sizeof(double));
}

/// What crosses each rank's link in the all-gathers and reduce-scatters of the three axis
/// groups, forward and backward (the bandwidth term of the cost model).
double axis_traffic(const RunResult& r) {
  double total = 0;
  for (const auto* phase : {&r.comm_forward, &r.comm_backward}) {
    for (const CollectiveCount& c : *phase) {
      const bool axis = c.group == "input" || c.group == "weight" || c.group == "output";
      const bool moves_blocks =
          c.collective == Collective::all_gather || c.collective == Collective::reduce_scatter;
      if (axis && moves_blocks) total += c.bus_elements;
    }
  }
  return total;
}

/// The elements of one collective on one group in one phase (0 when it never ran).
std::int64_t elements(const std::vector<CollectiveCount>& phase, Collective collective,
                      std::string_view group) {
  for (const CollectiveCount& c : phase) {
    if (c.collective == collective && c.group == group) return c.elements;
  }
  return 0;
}

TEST_F(Verify3D, CommunicationMatchesTheCostModel) {
  const BlockShape shape = whole_sequences();
  const double m = static_cast<double>(shape.tokens()), h = static_cast<double>(shape.h);
  const double cube = static_cast<double>(q * q * q);
  // schemes.md: 2(q-1)/q^3 (16 m h + 12 h^2) per rank per block, forward and backward
  const double model = 2.0 * static_cast<double>(q - 1) / cube * (16 * m * h + 12 * h * h);
  const RunResult kept = run(DType::f64, false, shape);
  EXPECT_DOUBLE_EQ(axis_traffic(kept), model);
  EXPECT_EQ(elements(kept.comm_forward, Collective::all_gather, "output_weight"), 0)
      << "attention on whole sequences must not communicate";

  // Regathering X~ and W~ repeats the gathers of forward: 7 m h + 12 h^2 over q^2 elements.
  const RunResult regathered = run(DType::f64, false, shape, true);
  EXPECT_DOUBLE_EQ(axis_traffic(regathered) - model,
                   static_cast<double>(q - 1) / cube * (7 * m * h + 12 * h * h));
}

TEST_F(Verify3D, AttentionOnCutSequencesGathersKeysAndValues) {
  if (q == 1) GTEST_SKIP() << "one rank holds every sequence whole";
  const BlockShape shape = cut_sequences();
  const RunResult r = run(DType::f64, false, shape);
  const std::int64_t keys_and_values = 2 * shape.tokens() * shape.h / q;  // two [m, h/q]
  EXPECT_EQ(elements(r.comm_forward, Collective::all_gather, "output_weight"), keys_and_values);
  EXPECT_EQ(elements(r.comm_backward, Collective::reduce_scatter, "output_weight"),
            keys_and_values);
}

TEST_F(Verify3D, AMisroutedReduceScatterIsCaught) {
  if (q == 1) GTEST_SKIP() << "groups of one rank have nothing to misroute";
  const auto plan_for = [](int misrouted) {
    auto plan = std::make_shared<Misrouting>();
    plan->misrouted = misrouted;
    plan->wrong_group = {{"input", "output"},
                         {"output", "input"},
                         {"weight", "output"},
                         {"output_weight", "input_weight"}};
    return plan;
  };
  // A run that misroutes nothing passes, and counts the reduce-scatters there are to misroute.
  const auto clean = plan_for(-1);
  MisroutedComm faithful(*world, clean);
  EXPECT_TRUE(run_through(faithful, DType::f64, false, cut_sequences(), false).pass);
  ASSERT_GT(clean->reduce_scatters, 0);
  for (int misrouted = 0; misrouted < clean->reduce_scatters; ++misrouted) {
    MisroutedComm faulty(*world, plan_for(misrouted));
    const RunResult r = run_through(faulty, DType::f64, false, cut_sequences(), false);
    EXPECT_FALSE(r.pass) << "reduce-scatter " << misrouted << " on the wrong group went unnoticed";
  }
}

TEST_F(Verify3D, RefusesHeadsThatDoNotSplitOverAnAxis) {
  if (q != 2) GTEST_SKIP() << "needs 8 ranks";
  EXPECT_THROW(run(DType::f64, false, {4, 4, 24, 3}), UsageError);
}

}  // namespace
}  // namespace tplab::verify
