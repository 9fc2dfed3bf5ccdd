// NcclComm on one GPU (label cuda): a blocking collective returns before the host has waited
// for it, with the interval its two events mark, and the device's stream sees its result.
// Skips, saying so, where the machine has no GPU.
#include "comm/nccl_comm.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "backend/cuda_backend.hpp"
#include "core/error.hpp"
#include "device/cpu_device.hpp"

namespace tplab {
namespace {

class NcclCommTest : public testing::Test {
 protected:
  void SetUp() override {
    try {
      cuda::visible_devices();
    } catch (const NoDeviceError& e) {
      if (e.reason() == NoDeviceError::Reason::absent) GTEST_SKIP() << e.what();
      FAIL() << e.what();
    }
    gpu = std::make_unique<CudaDevice>(0);
    world = NcclComm::world(*gpu);
  }

  std::unique_ptr<CudaDevice> gpu;
  std::unique_ptr<NcclComm> world;
};

TEST_F(NcclCommTest, ABlockingCollectiveHandsItsDeviceTimeOn) {
  Tensor x = gpu->empty({1024}, DType::f32);
  gpu->fill(x, 2.0);
  std::unique_ptr<DeviceInterval> interval = world->run({Collective::all_reduce, x, x});
  ASSERT_NE(interval, nullptr);
  std::vector<double> v(1024);
  gpu->download(x, v);  // on the device's stream, which waits for the collective
  for (double e : v) EXPECT_EQ(e, 2.0 * world->size());
  const double seconds = interval->seconds();
  EXPECT_GE(seconds, 0.0);
  EXPECT_LT(seconds, 10.0);
}

TEST_F(NcclCommTest, HostTensorsAreTimedByTheHost) {
  CpuDevice cpu;
  Tensor x = cpu.zeros({4}, DType::f64);
  EXPECT_EQ(world->run({Collective::all_reduce, x, x}), nullptr);
}

}  // namespace
}  // namespace tplab
