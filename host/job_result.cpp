#include "job_result.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "core/error.hpp"
#include "file_descriptor.hpp"
#include "random_name.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;

/// The job folder of `path`, opened without following a link, checked to be private.
FileDescriptor open_job_folder(const fs::path& path, std::string_view option) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  FileDescriptor dir(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!dir || fstat(dir.get(), &st) != 0) {
    throw UsageError(fmt::format("{} {}: cannot open the job folder {} ({})", option, path.string(),
                                 folder.string(), std::strerror(errno)));
  }
  if (const std::string why = not_private_reason(st); !why.empty()) {
    throw UsageError(fmt::format("{} {}: {} is not a private job folder: {}", option, path.string(),
                                 folder.string(), why));
  }
  return dir;
}

/// Writes `document` at `path` (see write_result), flushed to the disk when `durable`: in the job
/// folder, into a new file beside it that is then renamed over it, so the launcher reads the
/// last whole document even when the job is ended while writing.
void write_job_file(const std::string& path, nlohmann::json document, std::string_view option,
                    bool durable) {
  const std::string token = job_token();
  if (token.empty()) {
    write_file_safely(path, document.dump(2) + "\n", option);
    return;
  }
  const FileDescriptor dir = open_job_folder(path, option);
  const std::string name = fs::path(path).filename().string();
  const std::string temporary = fmt::format(".{}.{}.tmp", name, random_hex(6));
  FileDescriptor file(openat(dir.get(), temporary.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file) {
    throw UsageError(fmt::format("{} {}: cannot create the job's result ({})", option, path,
                                 std::strerror(errno)));
  }
  document[kJobTokenField] = token;
  try {
    file.write_all(document.dump(2) + "\n");
    if ((durable && fsync(file.get()) != 0) || file.close() != 0 ||
        renameat(dir.get(), temporary.c_str(), dir.get(), name.c_str()) != 0) {
      throw std::system_error(errno, std::generic_category());
    }
  } catch (const std::system_error& e) {
    unlinkat(dir.get(), temporary.c_str(), 0);
    throw UsageError(fmt::format("{} {}: writing the job's result failed ({})", option, path,
                                 e.code().message()));
  }
}

}  // namespace

std::string job_token() {
  const char* token = std::getenv(kJobTokenVariable);
  return token != nullptr ? token : "";
}

std::string not_private_reason(const struct stat& folder) {
  if (folder.st_uid != geteuid()) return "it belongs to another user";
  if ((folder.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return fmt::format("other users may use it (mode {:o})", folder.st_mode & 07777);
  }
  return {};
}

void require_result_target(const std::string& path, std::string_view option) {
  if (job_token().empty()) {
    require_writable_file(path, option);
    return;
  }
  const FileDescriptor dir = open_job_folder(path, option);
  struct stat st {};
  if (fstatat(dir.get(), fs::path(path).filename().c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    throw UsageError(fmt::format(
        "{} {}: something already has this name in the job folder; tplab writes its result "
        "only as a new file",
        option, path));
  }
}

void write_result(const std::string& path, nlohmann::json document, std::string_view option) {
  write_job_file(path, std::move(document), option, true);
}

void write_progress(const std::string& path, nlohmann::json document, std::string_view option) {
  write_job_file(path, std::move(document), option, false);
}

}  // namespace tplab::app
