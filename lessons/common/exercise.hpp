/// @file
/// What an exercise (or a solution) may use besides the primitives: the TODO marker.
///
/// An exercise is compiled against the primitives only (Tensor, the Device operations, the Comm
/// collectives, grids and placements) and this header; lessons/CMakeLists.txt says how.
#pragma once

#include <stdexcept>
#include <string>

namespace tplab::lessons {

/// Thrown by TPLAB_TODO(): this part of the exercise is not written yet.
class NotStarted : public std::runtime_error {
 public:
  /// `where`: the file and line of the TODO.
  explicit NotStarted(const std::string& where) : std::runtime_error(where) {}
};

/// Marks a part of an exercise the learner fills in. Every rank runs the same code (SPMD), so
/// every rank reaches the same TODO and the lesson reports "not started" rather than a failure.
#define TPLAB_TODO() \
  throw ::tplab::lessons::NotStarted(std::string(__FILE__) + ":" + std::to_string(__LINE__))

/// Exit code of a lesson program whose exercise still holds a TODO.
inline constexpr int kExitNotStarted = 5;

}  // namespace tplab::lessons
