// 1d-sp against the reference and the model: the activations it keeps (measured, equal to the
// formula, less than 1D's by the formula), and a dropped all-gather, reduce-scatter or gradient
// all-reduce each caught.
#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "cost_1d_sp.hpp"
#include "device/cpu_device.hpp"
#include "faulty_comm.hpp"
#include "harness.hpp"

namespace tplab::verify {
namespace {

RunResult run(Comm& world, Device& device, const std::string& scheme, const BlockShape& shape,
              bool exact) {
  RunConfig c;
  c.scheme = scheme;
  c.shape = shape;
  c.exact = exact;
  return run_verification(world, device, c);
}

TEST(SequenceParallel, KeepsWhatTheFormulaSaysAndLessThan1D) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  const std::int64_t t = world->size();
  // tokens and heads divide by 1, 2 and 4
  for (const BlockShape& s :
       {BlockShape{2, 8, 32, 4}, BlockShape{1, 12, 16, 4}, BlockShape{4, 6, 24, 4}}) {
    const std::int64_t m = s.tokens(), h = s.h;
    const std::int64_t probabilities = s.b * s.heads * s.s * s.s / t;
    for (bool exact : {false, true}) {
      const RunResult sp = run(*world, device, "1d-sp", s, exact);
      const RunResult plain = run(*world, device, "1d", s, exact);
      EXPECT_TRUE(sp.pass) << to_string(s);
      EXPECT_TRUE(plain.pass) << to_string(s);
      // cost_1d_sp.cpp: block 16 m h / t + b n s^2 / t + 2 m / t, linear pair 5 m h / t
      const std::int64_t formula =
          exact ? 5 * m * h / t : 16 * m * h / t + probabilities + 2 * m / t;
      EXPECT_EQ(sp.saved_bytes, static_cast<std::size_t>(formula) * sizeof(double))
          << to_string(s) << (exact ? " linear pair" : " block");
      EXPECT_EQ(sp.saved_bytes, sp.saved_bytes_model);
      EXPECT_EQ(plain.saved_bytes, plain.saved_bytes_model);
      const Workload w = exact ? Workload::linear_pair : Workload::block;
      const std::int64_t fewer =
          model::sequence_parallel_activation_savings(s, static_cast<int>(t), w);
      EXPECT_EQ(plain.saved_bytes - sp.saved_bytes, static_cast<std::size_t>(fewer) * 8)
          << "1D keeps (t-1)/t (4 m h + 2 m) elements more (m h for the linear pair)";
      if (t > 1) {
        EXPECT_LT(sp.saved_bytes, plain.saved_bytes);
      }
      world->barrier();
    }
  }
}

TEST(SequenceParallel, IsRefusedWhenTheRanksDoNotSplitTheTokens) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank splits every shape";
  CpuDevice device;
  RunConfig c;
  c.scheme = "1d-sp";
  c.shape = {1, 2 * world->size() + 1, 16, world->size()};  // heads divide, tokens do not
  try {
    run_verification(*world, device, c);
    ADD_FAILURE() << "an odd token count was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("share of the tokens"), std::string::npos) << e.what();
  }
}

TEST(SequenceParallel, ADroppedCollectiveIsCaught) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  if (world->size() == 1) GTEST_SKIP() << "one rank has nothing to gather or scatter";
  CpuDevice device;
  RunConfig c;
  c.scheme = "1d-sp";
  c.shape = {2, 8, 32, 4};
  // Per rank: 6 all-gathers (2 forward, 4 backward), 4 reduce-scatters (2 and 2), and 4
  // all-reduces of the replicated gradients (bo, b2, LN1's and LN2's gamma and beta).
  const std::pair<Collective, int> calls[] = {
      {Collective::all_gather, 6}, {Collective::reduce_scatter, 4}, {Collective::all_reduce, 4}};
  for (bool overlap : {false, true}) {
    c.options.overlap = overlap;
    for (const auto& [collective, count] : calls) {
      for (int dropped = 0; dropped < count; ++dropped) {
        FaultyComm faulty(*world, Fault{"tp", dropped, collective});
        const RunResult r = run_verification(faulty, device, c);
        EXPECT_FALSE(r.pass) << "dropping " << collective_name(collective) << " " << dropped
                             << (overlap ? " (overlap)" : "") << " went unnoticed";
        EXPECT_FALSE(r.properties.holds(Property::comm))
            << collective_name(collective) << " " << dropped;
        world->barrier();
      }
    }
  }
}

}  // namespace
}  // namespace tplab::verify
