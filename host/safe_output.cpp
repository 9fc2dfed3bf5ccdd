#include "safe_output.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <iterator>
#include <system_error>
#include <vector>

#include "core/error.hpp"
#include "file_descriptor.hpp"
#include "random_name.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;

std::string user_name(uid_t uid) {
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::vector<char> buffer(4096);
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return fmt::format("user {}", found->pw_name);
  }
  return fmt::format("user id {}", uid);
}

bool trusted_owner(uid_t uid) {
  return uid == geteuid() || uid == 0;
}

/// The folder a file path names ("." for a bare file name).
fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

/// Why a symbolic link on the way to `folder` could lead elsewhere than the user meant: one
/// that belongs to another user (a link of the user's own or of root's is their choice).
std::string planted_link_reason(const fs::path& folder) {
  fs::path walked;
  for (const fs::path& part : fs::absolute(folder)) {
    walked /= part;
    struct stat st {};
    if (lstat(walked.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && !trusted_owner(st.st_uid)) {
      return fmt::format("{} is a symbolic link that belongs to {}, who could point it elsewhere",
                         walked.string(), user_name(st.st_uid));
    }
  }
  return {};
}

/// Refuses a folder tplab may not write `target` into (see the rules in the header).
void require_trusted_folder(const fs::path& folder, const std::string& target,
                            std::string_view option) {
  struct stat st {};
  if (stat(folder.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      throw UsageError(fmt::format(
          "{} {}: the folder {} does not exist; create it first (mkdir -p {}) or write elsewhere",
          option, target, folder.string(), folder.string()));
    }
    throw UsageError(fmt::format("{} {}: cannot reach the folder {} ({})", option, target,
                                 folder.string(), std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format("{} {}: {} is not a folder", option, target, folder.string()));
  }
  std::string why = planted_link_reason(folder);
  if (why.empty()) why = untrusted_folder_reason(st);
  if (!why.empty()) {
    throw UsageError(fmt::format(
        "{} {}: tplab writes nothing into {}: {}. Write into a folder of your own instead", option,
        target, folder.string(), why));
  }
  if (faccessat(AT_FDCWD, folder.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    throw UsageError(fmt::format("{} {}: you cannot write into {} ({}); write elsewhere", option,
                                 target, folder.string(), std::strerror(errno)));
  }
}

/// Refuses a target that exists and is not a plain file.
void require_plain_file_or_none(const std::string& path, std::string_view option) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return;  // nothing there yet (or the folder check says why)
  if (S_ISDIR(st.st_mode)) {
    throw UsageError(
        fmt::format("{} {}: that is a folder; give a file in it, for example {}/result.json",
                    option, path, path));
  }
  if (S_ISLNK(st.st_mode)) {
    throw UsageError(fmt::format(
        "{} {}: that is a symbolic link, and tplab writes through no link (on a shared machine "
        "another user may have planted it); remove it, or give the file it points to",
        option, path));
  }
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(fmt::format(
        "{} {}: that is not a plain file (a device, a pipe or a socket); give the name of a "
        "file, for example result.json",
        option, path));
  }
}

/// The temporary file beside `name` that write_file_safely writes first.
std::string temporary_name(const std::string& name) {
  return fmt::format(".{}.{}.tmp", name, random_hex(6));
}

/// A long path shortened for a message: its first 32 and last 24 characters.
std::string abbreviated(const std::string& text) {
  if (text.size() <= 64) return text;
  return fmt::format("{}...{}", text.substr(0, 32), text.substr(text.size() - 24));
}

/// The file system's limit `which` (_PC_NAME_MAX, _PC_PATH_MAX) in `folder`, or `otherwise`
/// where it cannot say (a folder not made yet has its parent's limit).
long limit_in(const fs::path& folder, int which, long otherwise) {
  const long limit = pathconf(folder.c_str(), which);
  return limit > 0 ? limit : otherwise;
}

/// Refuses a path the file system cannot hold, before anything runs (a run would otherwise
/// lose its result when it writes it, at the end): one longer than _PC_PATH_MAX, or a name
/// in it longer than its folder's _PC_NAME_MAX. When it `names_a_file`, the room for the
/// temporary file written beside it first counts too.
void require_nameable(const std::string& path, std::string_view option, bool names_a_file) {
  const fs::path given(path);
  fs::path folder = given.is_absolute() ? given.root_path() : fs::path(".");
  const long extra = names_a_file ? static_cast<long>(temporary_name("").size()) : 0;
  const long path_max = limit_in(folder, _PC_PATH_MAX, PATH_MAX) - 1;  // less the final NUL
  if (static_cast<long>(path.size()) + extra > path_max) {
    throw UsageError(fmt::format(
        "{} {}: the path is {} characters long, more than the {} the file system takes{}; give "
        "a shorter path",
        option, abbreviated(path), path.size(), path_max - extra,
        names_a_file ? " (with room for the temporary file tplab writes first)" : ""));
  }
  long name_max = limit_in(folder, _PC_NAME_MAX, NAME_MAX);
  const fs::path parts = given.relative_path();
  for (auto part = parts.begin(); part != parts.end(); folder /= *part++) {
    const long length = static_cast<long>(part->native().size());
    if (names_a_file && std::next(part) == parts.end() && length + extra > name_max) {
      throw UsageError(fmt::format(
          "{} {}: the file name is {} characters long, more than the {} tplab can write in {} "
          "(the file system takes {}, and tplab first writes a temporary file {} characters "
          "longer); give a shorter name",
          option, abbreviated(path), length, name_max - extra,
          abbreviated(folder_of(given).string()), name_max, extra));
    }
    if (length > name_max) {
      throw UsageError(fmt::format(
          "{} {}: the folder name '{}' is {} characters long, more than the {} the file system "
          "takes; give a shorter path",
          option, abbreviated(path), abbreviated(part->string()), length, name_max));
    }
    name_max = limit_in(folder / *part, _PC_NAME_MAX, name_max);
  }
}

}  // namespace

std::string untrusted_folder_reason(const struct stat& folder) {
  if (!trusted_owner(folder.st_uid)) {
    return fmt::format("it belongs to {}, who could replace or redirect what is written there",
                       user_name(folder.st_uid));
  }
  if ((folder.st_mode & S_IWOTH) != 0 && (folder.st_mode & S_ISVTX) == 0) {
    return "every user may write into it and it has no sticky bit, so anyone could replace or "
           "redirect what is written there";
  }
  return {};
}

void require_writable_file(const std::string& path, std::string_view option) {
  if (path.empty()) {
    throw UsageError(
        fmt::format("{} '': give the name of a file, for example {} result.json", option, option));
  }
  if (!fs::path(path).has_filename()) {
    throw UsageError(
        fmt::format("{} {}: that names a folder; give a file in it, for example {}result.json",
                    option, path, path));
  }
  require_nameable(path, option, true);
  require_plain_file_or_none(path, option);
  require_trusted_folder(folder_of(path), path, option);
}

FileDescriptor open_trusted_folder(const fs::path& path, std::string_view option) {
  const fs::path folder = folder_of(path);
  FileDescriptor dir(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) {
    throw UsageError(fmt::format("{} {}: cannot open the folder {} ({})", option, path.string(),
                                 folder.string(), std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(dir.get(), &st) != 0) {
    throw UsageError(fmt::format("{} {}: cannot read the folder {} ({})", option, path.string(),
                                 folder.string(), std::strerror(errno)));
  }
  if (const std::string why = untrusted_folder_reason(st); !why.empty()) {
    throw UsageError(fmt::format("{} {}: tplab writes nothing into {}: {}", option, path.string(),
                                 folder.string(), why));
  }
  return dir;
}

void write_file_safely(const fs::path& path, std::string_view contents, std::string_view option) {
  const fs::path folder = folder_of(path);
  const std::string name = path.filename().string();
  const FileDescriptor dir = open_trusted_folder(path, option);
  // Whatever stands at the target is replaced, never written through: it may be a plain file
  // or a link, not a folder or a device (a rename would put the file in the device's place).
  struct stat target {};
  if (fstatat(dir.get(), name.c_str(), &target, AT_SYMLINK_NOFOLLOW) == 0 &&
      !S_ISREG(target.st_mode) && !S_ISLNK(target.st_mode)) {
    throw UsageError(
        fmt::format("{} {}: it exists and only a plain file is replaced", option, path.string()));
  }
  // A name nobody can guess, created only if nothing (not even a link) is there yet.
  std::string temporary;
  FileDescriptor file;
  for (int attempt = 0; attempt < 16 && !file; ++attempt) {
    temporary = temporary_name(name);
    file = FileDescriptor(openat(dir.get(), temporary.c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (!file && errno != EEXIST) break;
  }
  if (!file) {
    throw UsageError(fmt::format("{} {}: cannot create a file in {} ({})", option, path.string(),
                                 folder.string(), std::strerror(errno)));
  }
  try {
    file.write_all(contents);
    if (fsync(file.get()) != 0 || file.close() != 0) {
      throw std::system_error(errno, std::generic_category());
    }
    if (renameat(dir.get(), temporary.c_str(), dir.get(), name.c_str()) != 0) {
      throw std::system_error(errno, std::generic_category());
    }
  } catch (const std::system_error& e) {
    unlinkat(dir.get(), temporary.c_str(), 0);
    throw UsageError(fmt::format("{} {}: writing it failed ({}); nothing was written", option,
                                 path.string(), e.code().message()));
  }
  fsync(dir.get());  // the rename itself reaches the disk (some file systems cannot: no matter)
}

void require_output_folder(const std::string& path, std::string_view option) {
  if (path.empty()) {
    throw UsageError(
        fmt::format("{} '': give a folder, for example {} reference/", option, option));
  }
  require_nameable(path, option, false);
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      throw UsageError(
          fmt::format("{} {}: cannot reach it ({})", option, path, std::strerror(errno)));
    }
    fs::path folder = fs::path(path).lexically_normal();
    if (!folder.has_filename()) folder = folder.parent_path();  // "out/" names the folder "out"
    require_trusted_folder(folder_of(folder), path, option);
    return;
  }
  if (S_ISLNK(st.st_mode) && !trusted_owner(st.st_uid)) {
    throw UsageError(fmt::format(
        "{} {}: that is a symbolic link that belongs to {}, who could point it elsewhere; "
        "give a folder of your own",
        option, path, user_name(st.st_uid)));
  }
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format(
        "{} {}: that is not a folder; give a folder (it is made if missing)", option, path));
  }
  require_trusted_folder(path, path, option);
}

void make_output_folder(const std::string& path, std::string_view option) {
  require_output_folder(path, option);
  if (mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) {
    throw UsageError(
        fmt::format("{} {}: cannot make the folder ({})", option, path, std::strerror(errno)));
  }
  // Whoever made it (this call, or someone in between), it must pass the rules now.
  require_output_folder(path, option);
}

std::optional<std::string> read_own_file(const fs::path& path, std::string_view what) {
  FileDescriptor file(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file && errno == ENOENT) return std::nullopt;
  if (!file && errno == ELOOP) {
    throw UsageError(fmt::format(
        "{} {} is a symbolic link, and tplab reads it through no link (another user may have "
        "planted it); remove it",
        what, path.string()));
  }
  if (!file) {
    throw UsageError(
        fmt::format("cannot read {} {} ({})", what, path.string(), std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw UsageError(fmt::format("{} {} is not a plain file; remove it", what, path.string()));
  }
  if (!trusted_owner(st.st_uid)) {
    throw UsageError(fmt::format("{} {} belongs to {}, so tplab does not trust it; remove it", what,
                                 path.string(), user_name(st.st_uid)));
  }
  try {
    return file.read_all();
  } catch (const std::system_error& e) {
    throw UsageError(
        fmt::format("cannot read {} {} ({})", what, path.string(), e.code().message()));
  }
}

}  // namespace tplab::app
