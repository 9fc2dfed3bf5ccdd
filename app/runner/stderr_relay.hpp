/// @file
/// A launched job's standard error, passed on to tplab's own as it comes, with its last words
/// kept: a failed job is summarised by them ("last message"), and mpiexec's own refusal to
/// start more ranks than it has slots for is recognised, so that its remedy is suggested only
/// then.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "file_descriptor.hpp"

namespace tplab::app {

/// The pipe between a launched job's standard error and tplab's.
class StderrRelay {
 public:
  /// Makes the pipe (neither end is inherited by programs started later).
  StderrRelay();

  /// In the child, before exec: makes the pipe its standard error.
  void attach_in_child() const;
  /// In the parent, once the child is started: keeps only the end it reads.
  void detach_in_parent();
  /// Waits up to `wait` for output and passes on what came.
  void pass_on(std::chrono::milliseconds wait);
  /// After the job has ended: passes on what is still in flight, until the pipe closes or stays
  /// quiet for a moment (a process that outlived the job may hold it open).
  void pass_on_rest();

  /// The last line a tplab program or lesson wrote (its own words on what went wrong), or
  /// mpiexec's line saying it lacks slots; else the last line that is neither blank nor a rule
  /// of dashes; "" when the job wrote nothing.
  std::string last_message() const;
  /// Whether mpiexec said there are not enough slots for the ranks asked for.
  bool lacked_slots() const { return lacked_slots_; }

 private:
  void take(std::string_view bytes);
  void take_line(std::string_view line);

  FileDescriptor read_end_, write_end_;
  bool closed_ = false;
  std::string partial_;  // a line not yet ended
  std::string last_line_, last_explanation_;
  bool lacked_slots_ = false;
};

}  // namespace tplab::app
