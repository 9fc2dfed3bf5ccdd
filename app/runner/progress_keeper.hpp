/// @file
/// A job's results so far, written as it goes so that a job ended early (past its --timeout)
/// leaves them to the launcher, at a cost kept small: each write waits until the job has run
/// nine times as long as the last write took, so writing takes at most a tenth of the job's
/// time however many records pile up (a small document is written at every offer).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>

namespace tplab::app {

/// Writes the results a job offers, as often as the cost above allows.
class ProgressKeeper {
 public:
  /// `write` writes one document of records.
  explicit ProgressKeeper(std::function<void(nlohmann::json)> write);

  /// Writes the records `records()` makes, unless the last write was too recent.
  void offer(const std::function<nlohmann::json()>& records);

 private:
  using Clock = std::chrono::steady_clock;

  std::function<void(nlohmann::json)> write_;
  Clock::time_point next_write_{};
};

}  // namespace tplab::app
