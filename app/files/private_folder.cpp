#include "private_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "core/error.hpp"
#include "job_result.hpp"
#include "leftover_folders.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;

/// $TMPDIR, or `fallback` when it is not set; refused when it is not a folder to trust.
fs::path base_folder(const fs::path& fallback) {
  const char* tmpdir = std::getenv("TMPDIR");
  const fs::path base = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : fallback;
  struct stat st {};
  if (stat(base.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format(
        "TMPDIR={}: not a folder, and tplab keeps its jobs' files there; point TMPDIR at a "
        "folder of your own (mkdir -p ~/tmp; export TMPDIR=~/tmp)",
        base.string()));
  }
  if (const std::string why = untrusted_folder_reason(st); !why.empty()) {
    throw UsageError(fmt::format(
        "TMPDIR={}: tplab keeps no job files there: {}. Point TMPDIR at a folder of your own "
        "(mkdir -p ~/tmp; export TMPDIR=~/tmp) or at a sticky one such as /tmp",
        base.string(), why));
  }
  return base;
}

/// Writes this process's owner record into the folder `dir` (leftover_folders.hpp). Where it
/// cannot (a full disk), the folder has none, and only this process removes it.
void write_owner_record(const FileDescriptor& dir) {
  FileDescriptor file(openat(dir.get(), kOwnerRecordName,
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  try {
    if (file) file.write_all(owner_record());
  } catch (const std::system_error&) {
    unlinkat(dir.get(), kOwnerRecordName, 0);  // a part of a record is no record
  }
}

}  // namespace

PrivateFolder::PrivateFolder(std::string_view prefix, const fs::path& fallback) {
  const fs::path base = base_folder(fallback);
  remove_leftover_folders(base, prefix);
  std::string name = (base / fmt::format("{}-XXXXXX", prefix)).string();
  if (mkdtemp(name.data()) == nullptr) {
    throw UsageError(
        fmt::format("cannot make a folder like {} ({}); point TMPDIR at a "
                    "folder you can write",
                    name, std::strerror(errno)));
  }
  path_ = name;
  dir_ = FileDescriptor(open(name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!dir_ || fstat(dir_.get(), &st) != 0 || !not_private_reason(st).empty()) {
    rmdir(name.c_str());
    throw UsageError(
        fmt::format("the folder {} is not the private folder tplab made", path_.string()));
  }
  write_owner_record(dir_);
}

PrivateFolder::~PrivateFolder() {
  std::error_code ignored;  // a destructor has no one to tell; what is left is in $TMPDIR
  fs::remove_all(path_, ignored);
}

}  // namespace tplab::app
