// Every scheme that fits the world size of the mpiexec, on the GPU, against the reference: one
// rank with NCCL, several ranks (sharing a GPU) with MPI staged through the host. f64, f32
// and bf16; the exact linear pair in f32. Prints the largest share of each dtype's tolerance
// used, for calibration. Skips, saying why, on a machine without a GPU; fails where a GPU's
// driver is too old.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include "backend/cuda_backend.hpp"
#include "core/error.hpp"
#include "harness.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::verify {
namespace {

class VerifyCuda : public testing::Test {
 protected:
  void SetUp() override {
    try {
      cuda::visible_devices();  // every rank decides alike, before any collective
    } catch (const NoDeviceError& e) {
      // No GPU here: skip. A GPU the driver or CUDA cannot use is a failure, and says why.
      if (e.reason() == NoDeviceError::Reason::absent) GTEST_SKIP() << e.what();
      FAIL() << e.what();
    }
    device = cuda::make_device_for_rank();
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    world = cuda::make_world(*device, size == 1 ? "nccl" : "mpi", std::make_shared<CommCounters>());
  }

  std::unique_ptr<Device> device;
  std::unique_ptr<Comm> world;
};

TEST_F(VerifyCuda, EverySchemeAgreesWithTheReference) {
  const BlockShape shape{12, 6, 72, 12};
  for (const std::string& name : scheme_names()) {
    if (!make_scheme(name)->why_not(world->size(), shape).empty()) continue;
    for (DType dtype : {DType::f64, DType::f32, DType::bf16}) {
      for (bool exact : {false, true}) {
        if (exact && dtype != DType::f32) continue;
        RunConfig c;
        c.scheme = name;
        c.shape = shape;
        c.dtype = dtype;
        c.exact = exact;
        c.seed = 3;
        const RunResult r = run_verification(*world, *device, c);
        EXPECT_TRUE(r.pass) << name << " " << dtype_name(dtype) << (exact ? " exact" : "");
        EXPECT_EQ(r.backend, fmt::format("cuda/{}", world->size() == 1 ? "nccl" : "mpi-staged"));
        double share = 0, rel_l2 = 0;
        for (const TensorCheck& t : r.tensors) {
          EXPECT_TRUE(t.pass) << name << " " << dtype_name(dtype) << " " << t.name;
          EXPECT_EQ(t.nonfinite, 0) << t.name;
          if (exact) {
            EXPECT_EQ(t.max_abs, 0.0) << t.name;
          }
          share = std::max(share, t.share);
          if (zero_gradient(t.name) == nullptr) rel_l2 = std::max(rel_l2, t.rel_l2);
        }
        if (world->rank() == 0) {
          fmt::print("{} np={} {}{}: worst share of the tolerance {:.0f}%, worst rel_l2 {:.2e}\n",
                     name, world->size(), dtype_name(dtype), exact ? " exact" : "", share * 100,
                     rel_l2);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tplab::verify
