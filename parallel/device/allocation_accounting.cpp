#include "device/allocation_accounting.hpp"

#include <algorithm>

namespace tplab {

AllocationAccounting::AllocationAccounting() : totals_(std::make_shared<Totals>()) {}

std::shared_ptr<std::byte> AllocationAccounting::track(std::byte* raw, std::size_t bytes,
                                                       std::function<void(std::byte*)> release) {
  totals_->live += bytes;
  totals_->peak = std::max(totals_->peak, totals_->live);
  auto free_and_count = [totals = totals_, bytes, release = std::move(release)](std::byte* p) {
    totals->live -= bytes;
    release(p);
  };
  // Should the control block fail to allocate, shared_ptr calls the deleter: freed and counted.
  return std::shared_ptr<std::byte>(raw, std::move(free_and_count));
}

}  // namespace tplab
