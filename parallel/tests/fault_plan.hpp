// FaultPlan: TPLAB_INJECT_FAULT set and armed for one test, unset and disarmed after it.
#pragma once

#include <mpi.h>

#include <cstdlib>

#include "comm/fault_injection.hpp"

namespace tplab {

/// Sets TPLAB_INJECT_FAULT to `plan` (or unsets it, for nullptr) and arms it on this rank of
/// MPI_COMM_WORLD; unsets and disarms it when the test is done.
class FaultPlan {
 public:
  explicit FaultPlan(const char* plan) {
    if (plan != nullptr) setenv("TPLAB_INJECT_FAULT", plan, 1);
    if (plan == nullptr) unsetenv("TPLAB_INJECT_FAULT");
    arm();
  }
  ~FaultPlan() {
    unsetenv("TPLAB_INJECT_FAULT");
    arm();
  }
  FaultPlan(const FaultPlan&) = delete;
  FaultPlan& operator=(const FaultPlan&) = delete;

 private:
  static void arm() {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    arm_fault_injection(rank, size);
  }
};

}  // namespace tplab
