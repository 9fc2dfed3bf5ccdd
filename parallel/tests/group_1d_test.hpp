/// @file
/// The fixture the 1D layer tests share: the world as one tensor-parallel group of t ranks,
/// this rank r, a CPU device, and the execution policy, the test's parameter (collectives
/// started early or not).
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "comm/mpi_comm.hpp"
#include "comm/wrap_transport.hpp"
#include "device/cpu_device.hpp"
#include "grid/grid_1d.hpp"
#include "scheme/execution_policy.hpp"

namespace tplab::testing_layers {

/// The parameter: the policy overlaps (its collectives started) or not.
class Group1DTest : public testing::TestWithParam<bool> {
 protected:
  Group1DTest()
      : world(wrap_transport(MpiComm::world(), std::make_shared<CommCounters>())),
        grid(Grid1D::build(*world)),
        t(grid.tp->size()),
        r(grid.tp->rank()) {}

  /// Overlap on or off, as the test's parameter says.
  ExecutionPolicy policy() const { return {.overlap = GetParam()}; }

  CpuDevice device;
  std::unique_ptr<Comm> world;
  Grid1D grid;
  const int t, r;
};

}  // namespace tplab::testing_layers
