// TPLAB_CUDA_SYNC on the CPU: 1 waits after every launch, 0 or unset does not, anything else is
// refused with a message that says what would work.
#include "device/cuda/launch_sync.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.hpp"

namespace tplab::cuda {
namespace {

class LaunchSync : public testing::Test {
 protected:
  void TearDown() override { unsetenv("TPLAB_CUDA_SYNC"); }
};

TEST_F(LaunchSync, OffUnlessAskedFor) {
  unsetenv("TPLAB_CUDA_SYNC");
  EXPECT_FALSE(sync_after_launch_requested());
  setenv("TPLAB_CUDA_SYNC", "", 1);
  EXPECT_FALSE(sync_after_launch_requested());
  setenv("TPLAB_CUDA_SYNC", "0", 1);
  EXPECT_FALSE(sync_after_launch_requested());
}

TEST_F(LaunchSync, OneWaitsAfterEveryLaunch) {
  setenv("TPLAB_CUDA_SYNC", "1", 1);
  EXPECT_TRUE(sync_after_launch_requested());
}

TEST_F(LaunchSync, AnythingElseIsRefused) {
  setenv("TPLAB_CUDA_SYNC", "yes", 1);
  try {
    sync_after_launch_requested();
    FAIL() << "TPLAB_CUDA_SYNC=yes was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("TPLAB_CUDA_SYNC='yes': use 1"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tplab::cuda
