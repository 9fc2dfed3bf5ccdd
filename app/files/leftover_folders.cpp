#include "leftover_folders.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "file_descriptor.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;

/// The machine's boot (/proc/sys/kernel/random/boot_id), or "" when it cannot be read.
std::string boot_id() {
  std::ifstream file("/proc/sys/kernel/random/boot_id");
  std::string id;
  file >> id;
  return id;
}

/// This process's pid namespace ("pid:[4026531836]"): a pid means the same process only in the
/// same one (containers that share a folder may each have their own).
std::string pid_namespace() {
  std::error_code error;
  const fs::path link = fs::read_symlink("/proc/self/ns/pid", error);
  return error ? std::string() : link.string();
}

/// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat, after
/// the command name in parentheses, which may hold spaces), or "" when it cannot be read.
std::string start_time(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return {};
  const auto close = line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return field;
  }
  return {};
}

/// The owner record in `folder`, read without following a link; "" when there is none.
std::string read_owner_record(const fs::path& folder) {
  FileDescriptor file(
      open((folder / kOwnerRecordName).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file) return {};
  struct stat st {};
  if (fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 256) return {};
  try {
    return file.read_all();
  } catch (const std::system_error&) {
    return {};
  }
}

/// Whether `entry` is named `<prefix>-XXXXXX` and is a folder of the user's own (no link).
bool is_own_private_folder(const fs::directory_entry& entry, std::string_view prefix) {
  const std::string name = entry.path().filename().string();
  if (name.size() != prefix.size() + 7 || !name.starts_with(prefix) || name[prefix.size()] != '-') {
    return false;
  }
  struct stat st {};
  return lstat(entry.path().c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

}  // namespace

std::string owner_record() {
  return fmt::format("{} {} {} {}\n", boot_id(), pid_namespace(), getpid(), start_time(getpid()));
}

bool owner_is_gone(std::string_view record) {
  std::istringstream fields{std::string(record)};
  std::string boot, pids, started;
  pid_t pid = 0;
  if (!(fields >> boot >> pids >> pid >> started) || pid <= 0 || boot != boot_id() ||
      pids != pid_namespace()) {
    return false;  // not a record, or a process of another machine, boot or container
  }
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  const std::string now = start_time(pid);
  return !now.empty() && now != started;
}

void remove_leftover_folders(const fs::path& base, std::string_view prefix) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(base, error)) {
    if (!is_own_private_folder(entry, prefix)) continue;
    const std::string record = read_owner_record(entry.path());
    if (record.empty() || !owner_is_gone(record)) continue;
    std::error_code ignored;  // what cannot be removed now is tried again by the next run
    if (fs::remove_all(entry.path(), ignored) != static_cast<std::uintmax_t>(-1)) {
      fmt::print(stderr, "tplab: removed {}, left by a run that ended without removing it\n",
                 entry.path().string());
    }
  }
}

}  // namespace tplab::app
