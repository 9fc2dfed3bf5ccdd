// A device's account of its live tensor storage: what is allocated counts until the last handle
// goes, views count once, and the high-water mark holds the most live at once.
#include "device/allocation_accounting.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "device/cpu_device.hpp"

namespace tplab {
namespace {

TEST(AllocationAccounting, CountsTheElementsOfEveryLiveTensorUntilItsLastHandleGoes) {
  CpuDevice device;
  const AllocationAccounting& account = device.allocations();
  EXPECT_EQ(account.live_bytes(), 0u);
  Tensor a = device.empty({3, 5}, DType::f64);  // 120 bytes, though the allocator pads to 128
  EXPECT_EQ(account.live_bytes(), 120u);
  {
    Tensor b = device.zeros({7}, DType::f32);
    EXPECT_EQ(account.live_bytes(), 148u);
    const Tensor view = a.slice_rows(1, 2);
    const Tensor copy = a;
    EXPECT_EQ(account.live_bytes(), 148u) << "views and copies share the storage counted once";
  }
  EXPECT_EQ(account.live_bytes(), 120u);
  EXPECT_EQ(account.peak_bytes(), 148u);
  Tensor kept_view = a.slice_rows(0, 1);
  a = Tensor();
  EXPECT_EQ(account.live_bytes(), 120u) << "a view keeps its whole storage alive";
  kept_view = Tensor();
  EXPECT_EQ(account.live_bytes(), 0u);
}

TEST(AllocationAccounting, TheHighWaterMarkStartsAgainFromWhatIsLive) {
  CpuDevice device;
  AllocationAccounting& account = device.allocations();
  const Tensor kept = device.empty({10}, DType::f64);
  { const Tensor passing = device.empty({100}, DType::f64); }
  EXPECT_EQ(account.peak_bytes(), 880u);
  account.reset_peak();
  EXPECT_EQ(account.peak_bytes(), 80u);
  { const Tensor smaller = device.empty({20}, DType::f64); }
  EXPECT_EQ(account.peak_bytes(), 240u);
}

TEST(AllocationAccounting, StorageThatOutlivesItsDeviceIsStillTakenOffTheAccount) {
  Tensor survivor;
  {
    CpuDevice device;
    survivor = device.empty({4}, DType::f64);
  }
  survivor = Tensor();  // freed after the device is gone: nothing dangles
  SUCCEED();
}

TEST(AllocationAccounting, EachDeviceKeepsItsOwnAccount) {
  CpuDevice one, other;
  const Tensor t = one.empty({2}, DType::f64);
  EXPECT_EQ(one.allocations().live_bytes(), 16u);
  EXPECT_EQ(other.allocations().live_bytes(), 0u);
}

}  // namespace
}  // namespace tplab
