// Inputs far from zero: every scheme agrees with the reference in f64 when x ~ 20 + U[-1, 1).
// A LayerNorm that computes its variance in one pass, as E[x^2] - E[x]^2, loses about 10 of
// f64's bits there (the squared mean is 1200 times the variance) and fails this test (and the
// fuzz's draws of x far from zero), while it passes the tests on centred inputs, whose mean is
// near 0, where nothing cancels.
#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"
#include "harness.hpp"
#include "problem.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::verify {
namespace {

TEST(ShiftedInput, EverySchemeAgreesWhenTheFeaturesShareALargeMean) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  for (const std::string& scheme : scheme_names()) {
    RunConfig c;
    c.scheme = scheme;
    c.shape = {12, 6, 72, 12};  // verify's default: every scheme splits it at 1, 4, 8 and 27 ranks
    c.dtype = DType::f64;
    c.shifted_input = true;
    // The largest world this scheme can use here, split off the test's world.
    const int p = make_scheme(scheme)->usable_world_sizes(c.shape, world->size()).back();
    const bool mine = world->rank() < p;
    auto sub = world->split(mine ? 0 : 1, world->rank(), "shifted");
    if (mine) {
      for (bool overlap : {false, true}) {
        c.options.overlap = overlap;
        const RunResult r = run_verification(*sub, device, c);
        const std::string label =
            scheme + " np=" + std::to_string(p) + (overlap ? " overlap on" : " overlap off");
        EXPECT_TRUE(r.pass) << label;
        for (const TensorCheck& t : r.tensors) {
          // Two-pass LayerNorm uses a few percent of f64's tolerance here; a one-pass
          // variance uses many times all of it.
          EXPECT_LE(t.share, 0.5) << label << " " << t.name;
        }
      }
    }
    world->barrier();
  }
}

TEST(ShiftedInput, IsRefusedWhereF64sToleranceWasNotMeasuredForIt) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  RunConfig c;
  c.shifted_input = true;
  if (world->size() != 1) GTEST_SKIP() << "one rank is enough for a refusal";
  c.shape = {1, 4, 8, 1};
  EXPECT_THROW(run_verification(*world, device, c), UsageError) << "h = 8 is below 24";
  c.shape = {1, 4, 24, 1};
  c.dtype = DType::f32;
  EXPECT_THROW(run_verification(*world, device, c), UsageError) << "f32 rounds x ~ 20 itself";
  c.dtype = DType::f64;
  EXPECT_TRUE(run_verification(*world, device, c).pass);
}

TEST(ShiftedInput, XIsDrawnAroundTheOffsetAndTheRestAsCentred) {
  const BlockShape shape{2, 4, 8, 2};
  const HostArrays shifted = make_inputs(shape, 3, Workload::block, Values::shifted);
  const HostArrays centred = make_inputs(shape, 3, Workload::block, Values::real);
  const std::vector<double>& x = shifted.at("x").values;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i], centred.at("x").values[i] + kShiftedInputMean) << i;
  }
  for (const auto& [name, array] : centred) {
    if (name == "x") continue;
    EXPECT_EQ(array.values, shifted.at(name).values) << name;
  }
}

}  // namespace
}  // namespace tplab::verify
