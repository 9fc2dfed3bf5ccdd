/// @file
/// A folder of the launcher's own under $TMPDIR, removed with everything in it when it goes.
///
/// Made with mkdtemp (a name nobody can guess, mode 0700), with the record of the process that
/// made it; those that a launcher killed outright left behind are removed first
/// (leftover_folders.hpp). A $TMPDIR that is no folder, or that another user could change, is
/// refused with a message that says what to do.
#pragma once

#include <filesystem>
#include <string_view>

#include "file_descriptor.hpp"

namespace tplab::app {

/// One private folder (see the file comment).
class PrivateFolder {
 public:
  /// Makes `<$TMPDIR>/<prefix>-XXXXXX`, or `<fallback>/<prefix>-XXXXXX` when TMPDIR is not set.
  /// Throws UsageError when the folder under which it would go is not one to trust.
  PrivateFolder(std::string_view prefix, const std::filesystem::path& fallback);
  /// Removes the folder and everything in it.
  ~PrivateFolder();
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;

  /// The folder.
  const std::filesystem::path& path() const { return path_; }
  /// The folder, opened (O_DIRECTORY | O_NOFOLLOW), for *at(2) system calls.
  int descriptor() const { return dir_.get(); }

 private:
  std::filesystem::path path_;
  FileDescriptor dir_;
};

}  // namespace tplab::app
