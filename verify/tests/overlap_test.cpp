// Overlap on and off: every scheme passes both ways with the same collectives. Our products
// and sums run in the same order both ways, so the bits are the same wherever each started
// collective only moves data or sums two ranks' values (a + b == b + a exactly). A started sum
// over more ranks may be ordered differently by the MPI library's non-blocking algorithm than
// by its blocking one (Open MPI's reduce-scatter is), so there only the tolerance is asserted.
#include <gtest/gtest.h>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "grid/grid_3d.hpp"
#include "harness.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "tp2p5d/scheme_2p5d.hpp"

namespace tplab::verify {
namespace {

/// The most ranks one started sum of `scheme` adds: 1D's group, 2.5D's depth, 3D's weight
/// axis; 2D starts broadcasts only.
int ranks_in_started_sums(const std::string& scheme, int p, const BlockShape& shape) {
  if (scheme == "2d") return 1;
  if (scheme == "2.5d") return tp2p5d::Scheme2p5D().depth_for(p, shape);
  if (scheme == "3d") return cube_side(p);
  return p;
}

TEST(Overlap, PassesAndGivesTheSameBitsWhereNoSumIsReordered) {
  auto world = wrap_transport(MpiComm::world(), std::make_shared<CommCounters>());
  CpuDevice device;
  for (const std::string& scheme : scheme_names()) {
    RunConfig c;
    c.scheme = scheme;
    c.shape = {4, 4, 32, 4};
    // The largest world this scheme can use here, split off the test's world.
    const int p = make_scheme(scheme)->usable_world_sizes(c.shape, world->size()).back();
    const bool mine = world->rank() < p;
    auto sub = world->split(mine ? 0 : 1, world->rank(), "overlap");
    if (mine) {
      for (DType dtype : {DType::f64, DType::f32}) {
        c.dtype = dtype;
        c.options.overlap = false;
        const RunResult off = run_verification(*sub, device, c);
        c.options.overlap = true;
        const RunResult on = run_verification(*sub, device, c);
        const std::string label =
            scheme + " np=" + std::to_string(p) + " " + std::string(dtype_name(dtype));
        EXPECT_TRUE(off.pass) << label;
        EXPECT_TRUE(on.pass) << label;
        EXPECT_TRUE(on.properties.holds(Property::comm))
            << label << ": overlap issues the same collectives";
        ASSERT_EQ(off.tensors.size(), on.tensors.size());
        if (ranks_in_started_sums(scheme, p, c.shape) > 2) continue;
        for (std::size_t t = 0; t < off.tensors.size(); ++t) {
          EXPECT_EQ(off.tensors[t].hash, on.tensors[t].hash) << label << " " << off.tensors[t].name;
        }
      }
    }
    world->barrier();
  }
}

}  // namespace
}  // namespace tplab::verify
