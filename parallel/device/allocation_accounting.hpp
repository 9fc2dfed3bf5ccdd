/// @file
/// AllocationAccounting: the bytes of tensor storage a device has allocated and not yet freed.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace tplab {

/// A device's account of its tensors' storage: the bytes live now, and the most that were
/// live at once since the mark was last reset. Every allocation of the device passes through
/// track(), whose handle takes its bytes off the account when the last tensor sharing it goes
/// away, however long after the device itself: the totals live as long as any storage does.
///
/// The bytes counted are the elements' (numel x dtype size), not the padding an allocator
/// adds, so that the account is what the layers asked for, on every backend alike.
class AllocationAccounting {
 public:
  AllocationAccounting();

  /// Bytes of storage allocated and not yet freed.
  std::size_t live_bytes() const { return totals_->live; }
  /// The high-water mark of live_bytes() since construction or the last reset_peak().
  std::size_t peak_bytes() const { return totals_->peak; }
  /// Starts a new high-water mark from what is live now.
  void reset_peak() { totals_->peak = totals_->live; }

  /// Takes `raw`, storage of `bytes` just allocated, into the account: the handle it returns
  /// frees it with `release` and takes it off the account when its last copy goes away.
  std::shared_ptr<std::byte> track(std::byte* raw, std::size_t bytes,
                                   std::function<void(std::byte*)> release);

 private:
  /// What the handles update: shared with every handle, which may outlive the device.
  struct Totals {
    std::size_t live = 0;
    std::size_t peak = 0;
  };
  std::shared_ptr<Totals> totals_;
};

}  // namespace tplab
