#include "progress_keeper.hpp"

#include <utility>

namespace tplab::app {

ProgressKeeper::ProgressKeeper(std::function<void(nlohmann::json)> write)
    : write_(std::move(write)) {}

void ProgressKeeper::offer(const std::function<nlohmann::json()>& records) {
  const Clock::time_point start = Clock::now();
  if (start < next_write_) return;
  write_(records());
  const Clock::time_point end = Clock::now();
  next_write_ = end + 9 * (end - start);
}

}  // namespace tplab::app
