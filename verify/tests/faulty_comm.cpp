#include "faulty_comm.hpp"

#include <algorithm>

namespace tplab::verify {

FaultyComm::FaultyComm(Comm& inner, std::shared_ptr<std::vector<int>> skipped,
                       std::shared_ptr<int> all_reduce_count)
    : Comm(inner.group(), inner.shared_counters()),
      inner_(&inner),
      skipped_(std::move(skipped)),
      count_(std::move(all_reduce_count)) {}

FaultyComm::FaultyComm(std::unique_ptr<Comm> owned, std::shared_ptr<std::vector<int>> skipped,
                       std::shared_ptr<int> all_reduce_count)
    : Comm(owned->group(), owned->shared_counters()),
      owned_(std::move(owned)),
      inner_(owned_.get()),
      skipped_(std::move(skipped)),
      count_(std::move(all_reduce_count)) {}

std::unique_ptr<Comm> FaultyComm::split(int color, int key, const std::string& group) {
  return std::make_unique<FaultyComm>(inner_->split(color, key, group), skipped_, count_);
}

void FaultyComm::do_all_reduce(Tensor& x, ReduceOp op) {
  const int index = (*count_)++;
  if (std::find(skipped_->begin(), skipped_->end(), index) != skipped_->end()) return;
  inner_->all_reduce(x, op);
}

}  // namespace tplab::verify
