/// @file
/// CommRequest: a collective started without waiting for it, completed by wait().
#pragma once

#include <functional>
#include <memory>

namespace tplab {

/// The transport of a started collective, as an implementation hands it back (an MPI request;
/// on a GPU, work queued on the communicator's own stream).
class PendingTransport {
 public:
  virtual ~PendingTransport() = default;
  /// Completes the collective for the caller, once: blocks until the data has arrived (MPI),
  /// or makes the device's stream wait for it, the host going on (NCCL).
  virtual void wait() = 0;
};

/// A collective in flight, returned by Comm::start_all_reduce and its siblings. Until wait()
/// returns, the collective's result must not be read and its input must not be written; the
/// Comm that started it must outlive it. A request that is destroyed without wait() waits in
/// its destructor, so no transfer is ever left writing into freed memory. On a GPU, wait()
/// orders the device's stream after the collective: what is queued on it next sees the result.
class CommRequest {
 public:
  /// A request that is already complete.
  CommRequest() = default;
  /// A request that `finish` completes (called once, by wait()).
  explicit CommRequest(std::function<void()> finish);
  /// Takes over `other`'s collective; `other` is left complete.
  CommRequest(CommRequest&& other) noexcept;
  /// Waits for this request's own collective, then takes over `other`'s.
  CommRequest& operator=(CommRequest&& other);
  CommRequest(const CommRequest&) = delete;
  CommRequest& operator=(const CommRequest&) = delete;
  ~CommRequest();

  /// Completes the collective (PendingTransport::wait); a second call returns at once.
  void wait();
  /// True until wait() has completed the collective.
  bool pending() const { return static_cast<bool>(finish_); }

 private:
  std::function<void()> finish_;
};

}  // namespace tplab
