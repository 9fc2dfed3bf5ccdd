/// @file
/// The two kinds of failure tplab distinguishes.
#pragma once

#include <stdexcept>
#include <string>

namespace tplab {

/// The user asked for something that cannot work (a world size, a shape, an option).
/// The message says what was wrong and what would work. Every rank decides it alike,
/// before any collective, so every rank throws and nobody waits in a collective.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The machine lacks what was asked for: no CUDA device is visible, the NVIDIA driver is too old
/// for this build's CUDA runtime, CUDA failed to start, or this build has no CUDA support. Not
/// the user's input and not a bug, so it has an exit code of its own.
class NoDeviceError : public std::runtime_error {
 public:
  /// Whether there is a GPU to use at all.
  enum class Reason {
    absent,    ///< no GPU, no NVIDIA driver, or no CUDA in this build: GPU tests skip
    unusable,  ///< a driver too old, or CUDA failing to start: GPU tests fail, saying why
  };
  /// `message` says what is missing and what would work; `reason` whether a GPU is there.
  explicit NoDeviceError(const std::string& message, Reason reason = Reason::absent)
      : std::runtime_error(message), reason_(reason) {}
  /// Why no GPU can be used.
  Reason reason() const { return reason_; }

 private:
  Reason reason_;
};

/// A broken invariant inside tplab: a bug, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Throws InternalError with `what` when `condition` is false.
inline void check(bool condition, const std::string& what) {
  if (!condition) throw InternalError(what);
}

}  // namespace tplab
