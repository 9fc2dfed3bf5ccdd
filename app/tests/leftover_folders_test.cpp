// The folders a killed launcher left are removed by the next one only when their maker is gone:
// never a live run's, one without a record, another machine's, or one that is not a folder of
// the same prefix.
#include "leftover_folders.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "scratch_folder.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;
using testing::ScratchFolder;

/// The record `owner_record()` gives, with its pid replaced by `pid` (start time kept).
std::string record_with_pid(pid_t pid) {
  std::istringstream fields(owner_record());
  std::string boot, pids, old_pid, started;
  fields >> boot >> pids >> old_pid >> started;
  return fmt::format("{} {} {} {}\n", boot, pids, pid, started);
}

/// A pid that no process has now: a child that has ended and been reaped.
pid_t ended_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

/// Makes the folder `base/name` (mode 0700), with `record` as its owner record unless empty.
fs::path leftover(const ScratchFolder& base, const std::string& name, const std::string& record) {
  const fs::path folder = base / name;
  fs::create_directory(folder);
  fs::permissions(folder, fs::perms::owner_all);
  if (!record.empty()) std::ofstream(folder / kOwnerRecordName) << record;
  std::ofstream(folder / "job-0.json") << "{}";
  return folder;
}

TEST(LeftoverFolders, TheRecordNamesThisProcessWhichIsNotGone) {
  const std::string record = owner_record();
  EXPECT_NE(record.find(fmt::format(" {} ", getpid())), std::string::npos) << record;
  EXPECT_FALSE(owner_is_gone(record));
  EXPECT_TRUE(owner_is_gone(record_with_pid(ended_pid())));
  EXPECT_FALSE(owner_is_gone("not a record"));
  EXPECT_FALSE(owner_is_gone(""));
}

TEST(LeftoverFolders, AProcessThatStartedAtAnotherTimeIsNotTheOwner) {
  std::istringstream fields(owner_record());
  std::string boot, pids, pid, started;
  fields >> boot >> pids >> pid >> started;
  EXPECT_TRUE(owner_is_gone(fmt::format("{} {} {} {}1\n", boot, pids, pid, started)))
      << "this pid, used again by a process that started later";
}

TEST(LeftoverFolders, OnlyThoseOfAGoneOwnerAreRemoved) {
  ScratchFolder base;
  const fs::path gone = leftover(base, "tplab-job-gone01", record_with_pid(ended_pid()));
  const fs::path live = leftover(base, "tplab-job-live01", owner_record());
  const fs::path unrecorded = leftover(base, "tplab-job-none01", "");
  const fs::path elsewhere = leftover(base, "tplab-job-else01", "another-boot pid:[1] 1 1\n");
  const fs::path other_prefix = leftover(base, "tplab-mpi-gone02", record_with_pid(ended_pid()));
  const fs::path other_name = leftover(base, "tplab-job-gone-long", record_with_pid(ended_pid()));
  fs::create_directory(base / "target");
  std::ofstream(base / "target" / kOwnerRecordName) << record_with_pid(ended_pid());
  fs::create_directory_symlink(base / "target", base / "tplab-job-link01");

  remove_leftover_folders(base.path(), "tplab-job");

  EXPECT_FALSE(fs::exists(gone));
  for (const fs::path& kept : {live, unrecorded, elsewhere, other_prefix, other_name}) {
    EXPECT_TRUE(fs::exists(kept / "job-0.json")) << kept;
  }
  EXPECT_TRUE(fs::exists(base / "target" / kOwnerRecordName)) << "a link is never followed";
  EXPECT_TRUE(fs::is_symlink(base / "tplab-job-link01"));
}

}  // namespace
}  // namespace tplab::app
