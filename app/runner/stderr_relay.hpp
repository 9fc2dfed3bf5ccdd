/// @file
/// A launched job's standard error, passed on to tplab's own as it comes, with its last words
/// kept: a failed job is summarised by them ("last message"), and mpiexec's own refusal to
/// start more ranks than it has slots for is recognised, so that its remedy is suggested only
/// then. So are Open MPI's own words when it could not start or run the job (a daemon that did
/// not start on an unreachable host, "out of resource" in its session files), so that the
/// summary gives them, and the cause, rather than an exit code.
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
  /// Open MPI's first line saying it could not start or run the job (from its ORTE_ERROR_LOG or
  /// PMIX ERROR marker on, when it has one), with the line before its message when that names a
  /// cause ("ORTE was unable to reliably start one or more daemons (ssh: Could not resolve
  /// hostname ...)"); "" when it said none, or when a rank said first-hand what went wrong:
  /// then the job ran, and Open MPI's lines are its own trouble reporting that (two ranks
  /// aborting at once make its show_help log "Out of resource").
  std::string mpiexec_error() const { return ranks_explained_ ? std::string() : mpiexec_error_; }

 private:
  void take(std::string_view bytes);
  void take_line(std::string_view line);
  void take_open_mpi_line(std::string_view text);

  FileDescriptor read_end_, write_end_;
  bool closed_ = false;
  std::string partial_;  // a line not yet ended
  std::string last_line_, last_explanation_;
  bool lacked_slots_ = false;
  bool in_help_block_ = false;  // between the rules of dashes around an Open MPI message
  std::string cause_;           // the last line outside such a message, not tplab's
  std::string mpiexec_error_;
  bool ranks_explained_ = false;  // a line of tplab's own programs (or a lesson's) was seen
};

}  // namespace tplab::app
