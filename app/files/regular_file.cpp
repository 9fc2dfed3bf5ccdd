#include "regular_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/error.hpp"
#include "file_descriptor.hpp"

namespace tplab::app {
namespace {

/// Refuses what `st` describes unless it is a regular file.
void require_regular(const struct stat& st, const std::string& path, std::string_view option,
                     std::string_view advice) {
  if (!S_ISREG(st.st_mode)) {
    throw UsageError(fmt::format("{} {}: that is {}, not a regular file; {}", option, path,
                                 kind_of_file(st.st_mode), advice));
  }
}

}  // namespace

std::string kind_of_file(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a file";
}

std::string read_regular_file(const std::string& path, std::string_view option,
                              std::string_view advice) {
  const auto cannot_read = [&](int error) {
    return UsageError(
        fmt::format("{} {}: cannot read it ({}); {}", option, path, std::strerror(error), advice));
  };
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw cannot_read(errno);
  require_regular(st, path, option, advice);
  const FileDescriptor file(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!file || fstat(file.get(), &st) != 0) throw cannot_read(errno);
  require_regular(st, path, option, advice);
  try {
    return file.read_all();
  } catch (const std::system_error& e) {
    throw cannot_read(e.code().value());
  }
}

}  // namespace tplab::app
