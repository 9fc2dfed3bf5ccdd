// What tplab says when the CUDA runtime finds no GPU to use, on the CPU: only a machine without
// a GPU (or without an NVIDIA driver) says "no CUDA device found", which CTest's skip pattern
// (TPLAB_NO_GPU_PATTERN) turns into a skipped GPU test; a driver too old for the runtime or
// CUDA failing to start is named as what it is, with the driver's version, and fails the test.
#include "device/cuda/device_query.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace tplab::cuda {
namespace {

using Status = DeviceQuery::Status;

bool skipped_by_ctest(const std::string& message) {
  return std::regex_search(message, std::regex(TPLAB_NO_GPU_PATTERN));
}

DeviceQuery query(Status status, int driver, std::string error = "") {
  DeviceQuery q;
  q.status = status;
  q.driver_version = driver;
  q.runtime_version = 13000;
  q.error = std::move(error);
  return q;
}

TEST(DeviceQuery, OnlyAGpuCountsAsFound) {
  DeviceQuery q = query(Status::success, 13000);
  EXPECT_FALSE(found_gpu(q));  // count 0
  q.count = 1;
  EXPECT_TRUE(found_gpu(q));
  EXPECT_FALSE(found_gpu(query(Status::no_device, 13000)));
}

TEST(DeviceQuery, AMachineWithoutAGpuSkips) {
  for (const DeviceQuery& q : {query(Status::success, 13000), query(Status::no_device, 13000)}) {
    const NoDeviceError e = unusable_device_error(q);
    EXPECT_EQ(e.reason(), NoDeviceError::Reason::absent);
    EXPECT_TRUE(skipped_by_ctest(e.what())) << e.what();
  }
}

TEST(DeviceQuery, NoDriverAtAllIsNoGpu) {
  // The runtime says "insufficient driver" when there is no driver; its version is then 0.
  const NoDeviceError e = unusable_device_error(query(Status::insufficient_driver, 0));
  EXPECT_EQ(e.reason(), NoDeviceError::Reason::absent);
  EXPECT_TRUE(skipped_by_ctest(e.what())) << e.what();
  EXPECT_NE(std::string(e.what()).find("no NVIDIA driver is installed"), std::string::npos);
}

TEST(DeviceQuery, ADriverTooOldFailsAndNamesBothVersions) {
  const NoDeviceError e = unusable_device_error(query(Status::insufficient_driver, 12020));
  EXPECT_EQ(e.reason(), NoDeviceError::Reason::unusable);
  EXPECT_FALSE(skipped_by_ctest(e.what())) << e.what();
  EXPECT_EQ(std::string(e.what()),
            "driver too old: the NVIDIA driver supports CUDA 12.2, and this build's CUDA 13.0 "
            "runtime needs a driver for CUDA 13.0 or newer (NVIDIA 580 or newer)");
}

TEST(DeviceQuery, OtherFailuresAreNamedWithTheDriversVersion) {
  const NoDeviceError e = unusable_device_error(
      query(Status::other, 13000, "cudaErrorSystemNotReady: system not yet initialized"));
  EXPECT_EQ(e.reason(), NoDeviceError::Reason::unusable);
  EXPECT_FALSE(skipped_by_ctest(e.what())) << e.what();
  EXPECT_EQ(std::string(e.what()),
            "CUDA failed to start: cudaErrorSystemNotReady: system not yet initialized (the "
            "NVIDIA driver supports CUDA 13.0, this build's runtime is CUDA 13.0)");
}

TEST(DeviceQuery, VersionsReadAsCudaWritesThem) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(minimum_driver_for(13010), "580");
  EXPECT_EQ(minimum_driver_for(11080), "");
}

}  // namespace
}  // namespace tplab::cuda
