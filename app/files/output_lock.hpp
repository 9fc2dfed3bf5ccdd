/// @file
/// One writer for each output file: a run that writes its file again and again (the launcher's
/// `--json`, after every job) holds a lock on it while it runs, so that two runs cannot leave
/// one file with a verdict that covers only one run's results.
///
/// The lock is flock(2) on a lock file beside the target, `.NAME.lock` in the same folder (a
/// lock on the folder itself would hold every other output there too, and any user who may
/// read a shared folder such as /tmp could take it). The lock file is made as the output is
/// (safe_output.hpp): in a folder that passes the rules there, through no link, and used only
/// when it is a regular file of the user's own. It holds the pid of the run that holds it, for
/// the message of a run refused. A kernel lock goes with its process however the run ends (even
/// on SIGKILL); the file is removed when the run ends, and one a killed run left behind is
/// simply taken by the next.
#pragma once

#include <string>
#include <string_view>

#include "file_descriptor.hpp"

namespace tplab::app {

/// The lock of one output file, held from construction to destruction.
class OutputLock {
 public:
  /// Takes the lock of `path` (a target require_writable_file accepted). Throws UsageError
  /// "`option` PATH: another tplab run is writing PATH (pid N)" when another run holds it,
  /// without waiting, and UsageError naming `option` when the lock file cannot be made.
  OutputLock(const std::string& path, std::string_view option);
  /// Removes the lock file, then releases the lock.
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  /// Opens (making it when missing) the lock file, refusing one that is not the user's own.
  FileDescriptor open_lock_file(const std::string& path, std::string_view option) const;

  FileDescriptor folder_;  ///< the folder of the output and of its lock file
  std::string name_;       ///< the lock file's name in it: ".NAME.lock"
  FileDescriptor lock_;    ///< the lock file, locked
};

}  // namespace tplab::app
