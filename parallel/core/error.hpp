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

/// The machine lacks what was asked for: no CUDA device is visible, or this build has no CUDA
/// support. Not the user's input and not a bug, so it has an exit code of its own.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
