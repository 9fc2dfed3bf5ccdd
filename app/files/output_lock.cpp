#include "output_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

/// Whether `name` in `folder` is still the file open as `file` (and not one made after it was
/// removed).
bool still_named(const FileDescriptor& folder, const std::string& name,
                 const FileDescriptor& file) {
  struct stat named {};
  struct stat opened {};
  return fstatat(folder.get(), name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         fstat(file.get(), &opened) == 0 && named.st_dev == opened.st_dev &&
         named.st_ino == opened.st_ino;
}

/// The pid a lock file holds, " (pid N)", or "" when it holds none yet.
std::string holder_of(const FileDescriptor& lock) {
  char text[32] = {};
  const ssize_t got = pread(lock.get(), text, sizeof text - 1, 0);
  const long pid = got > 0 ? std::strtol(text, nullptr, 10) : 0;
  return pid > 0 ? fmt::format(" (pid {})", pid) : std::string();
}

}  // namespace

OutputLock::OutputLock(const std::string& path, std::string_view option)
    : folder_(open_trusted_folder(path, option)),
      name_(fmt::format(".{}.lock", std::filesystem::path(path).filename().string())) {
  // The run that holds the lock removes its file as it ends, maybe after this run opened it:
  // a lock on a file the name no longer leads to locks nothing, so it is taken again.
  for (int attempt = 0; attempt < 16; ++attempt) {
    lock_ = open_lock_file(path, option);
    if (flock(lock_.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        throw UsageError(fmt::format(
            "{} {}: another tplab run is writing {}{}; wait for it to end, or write elsewhere",
            option, path, path, holder_of(lock_)));
      }
      throw UsageError(
          fmt::format("{} {}: cannot lock {} ({})", option, path, name_, std::strerror(errno)));
    }
    if (!still_named(folder_, name_, lock_)) continue;
    try {
      if (ftruncate(lock_.get(), 0) != 0) throw std::system_error(errno, std::generic_category());
      lock_.write_all(fmt::format("{}\n", getpid()));
    } catch (const std::system_error& e) {
      throw UsageError(fmt::format("{} {}: cannot write the lock {} ({})", option, path, name_,
                                   e.code().message()));
    }
    return;
  }
  throw UsageError(
      fmt::format("{} {}: cannot lock {}: other runs keep replacing it", option, path, name_));
}

OutputLock::~OutputLock() {
  // Removed while still locked: a run that opened it meanwhile sees it is gone (still_named).
  if (lock_) unlinkat(folder_.get(), name_.c_str(), 0);
}

FileDescriptor OutputLock::open_lock_file(const std::string& path, std::string_view option) const {
  FileDescriptor file(openat(folder_.get(), name_.c_str(),
                             O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  if (!file) {
    throw UsageError(
        fmt::format("{} {}: cannot make its lock file {} beside it ({}{})", option, path, name_,
                    std::strerror(errno),
                    errno == ELOOP ? ": a symbolic link, which tplab never follows" : ""));
  }
  struct stat st {};
  if (fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    throw UsageError(fmt::format(
        "{} {}: its lock file {} beside it is not a regular file of yours; tplab locks no file "
        "another user made: write elsewhere",
        option, path, name_));
  }
  return file;
}

}  // namespace tplab::app
