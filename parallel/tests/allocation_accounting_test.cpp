// A device's account of its live tensor storage: what is allocated counts until the last handle
// goes, views count once, the high-water mark holds the most live at once, and storage that
// outlives its account is still released, once, by its last handle.
#include "device/allocation_accounting.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <vector>

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

TEST(AllocationAccounting, StorageThatOutlivesItsAccountIsReleasedOnceByItsLastHandle) {
  // A tensor may outlive its device, and so the account its storage was tracked in. The last
  // handle must still release the storage, once, and must not reach into the account that is
  // gone (that would be a use after free, which the asan preset reports).
  std::byte storage[48];
  std::vector<std::byte*> released;
  const auto release = [&](std::byte* p) { released.push_back(p); };
  std::shared_ptr<std::byte> survivor;
  {
    AllocationAccounting account;
    survivor = account.track(storage, 32, release);
    {
      const std::shared_ptr<std::byte> passing = account.track(storage + 32, 16, release);
      EXPECT_EQ(account.live_bytes(), 48u);
    }
    EXPECT_EQ(account.live_bytes(), 32u) << "the storage whose last handle went is off";
    EXPECT_EQ(account.peak_bytes(), 48u);
    ASSERT_EQ(released, std::vector<std::byte*>{storage + 32});
  }
  std::shared_ptr<std::byte> copy = survivor;
  survivor.reset();
  EXPECT_EQ(released.size(), 1u) << "a copy of the handle still holds the storage";
  copy.reset();
  EXPECT_EQ(released, (std::vector<std::byte*>{storage + 32, storage}));
}

TEST(AllocationAccounting, EachDeviceKeepsItsOwnAccount) {
  CpuDevice one, other;
  const Tensor t = one.empty({2}, DType::f64);
  EXPECT_EQ(one.allocations().live_bytes(), 16u);
  EXPECT_EQ(other.allocations().live_bytes(), 0u);
}

}  // namespace
}  // namespace tplab
