#include "comm/comm_request.hpp"

#include <fmt/format.h>

#include <exception>

namespace tplab {

CommRequest::CommRequest(std::function<void()> finish) : finish_(std::move(finish)) {}

CommRequest::CommRequest(CommRequest&& other) noexcept : finish_(std::move(other.finish_)) {
  other.finish_ = nullptr;
}

CommRequest& CommRequest::operator=(CommRequest&& other) {
  if (this == &other) return *this;
  wait();
  finish_ = std::move(other.finish_);
  other.finish_ = nullptr;
  return *this;
}

CommRequest::~CommRequest() {
  if (!pending()) return;
  try {
    wait();
  } catch (const std::exception& e) {
    // A destructor cannot throw; the failure is already ending the rank's run.
    fmt::print(stderr, "tplab: a collective failed while its request was dropped: {}\n", e.what());
  }
}

void CommRequest::wait() {
  if (!finish_) return;
  const std::function<void()> finish = std::move(finish_);
  finish_ = nullptr;
  finish();
}

}  // namespace tplab
