// The rules for files tplab writes on the user's behalf: each refusal, and what is accepted.
#include "safe_output.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/error.hpp"
#include "output_lock.hpp"
#include "scratch_folder.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;
using testing::kNobody;
using testing::kNoGroup;
using testing::put;
using testing::ScratchFolder;
using testing::text_of;

/// The message of the UsageError `action` throws ("" when it throws none).
template <typename Action>
std::string refusal(Action action) {
  try {
    action();
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

TEST(RequireWritableFile, AcceptsANewFileOrAPlainOneInAFolderOfTheUsers) {
  ScratchFolder dir;
  EXPECT_EQ(refusal([&] { require_writable_file(dir / "new.json", "--json"); }), "");
  put(dir / "old.json", "{}");
  EXPECT_EQ(refusal([&] { require_writable_file(dir / "old.json", "--json"); }), "");
}

TEST(RequireWritableFile, AcceptsAStickyFolderEveryUserMayWriteInto) {
  ScratchFolder dir;
  fs::create_directory(dir / "shared");
  chmod((dir / "shared").c_str(), 01777);  // as /tmp
  EXPECT_EQ(refusal([&] { require_writable_file(dir / "shared" / "r.json", "--json"); }), "");
}

TEST(RequireWritableFile, RefusesAnEmptyNameAFolderAndADevice) {
  ScratchFolder dir;
  EXPECT_NE(refusal([] { require_writable_file("", "--json"); }).find("--json '': give the name"),
            std::string::npos);
  EXPECT_NE(refusal([&] { require_writable_file(dir.path(), "--json"); }).find("that is a folder"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              require_writable_file(dir.path().string() + "/", "--json");
            }).find("that names a folder"),
            std::string::npos);
  EXPECT_NE(refusal([] {
              require_writable_file("/dev/full", "--json");
            }).find("not a plain file (a device"),
            std::string::npos);
}

TEST(RequireWritableFile, RefusesAMissingFolder) {
  ScratchFolder dir;
  const std::string message =
      refusal([&] { require_writable_file(dir / "missing" / "r.json", "--json"); });
  EXPECT_NE(message.find("does not exist; create it first (mkdir -p"), std::string::npos)
      << message;
}

TEST(RequireWritableFile, RefusesASymbolicLinkWhereverItPoints) {
  ScratchFolder dir;
  put(dir / "victim", "precious");
  fs::create_symlink(dir / "victim", dir / "r.json");
  EXPECT_NE(refusal([&] {
              require_writable_file(dir / "r.json", "--json");
            }).find("symbolic link, and tplab writes through no link"),
            std::string::npos);
}

TEST(RequireWritableFile, RefusesAFolderEveryUserMayWriteIntoWithoutTheStickyBit) {
  ScratchFolder dir;
  fs::create_directory(dir / "open");
  chmod((dir / "open").c_str(), 0777);
  EXPECT_NE(refusal([&] {
              require_writable_file(dir / "open" / "r.json", "--json");
            }).find("has no sticky bit"),
            std::string::npos);
}

TEST(RequireWritableFile, RefusesAFolderOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a folder to another user needs root";
  ScratchFolder dir;
  fs::create_directory(dir / "theirs");
  ASSERT_EQ(chown((dir / "theirs").c_str(), kNobody, kNoGroup), 0);
  EXPECT_NE(refusal([&] {
              require_writable_file(dir / "theirs" / "r.json", "--json");
            }).find("belongs to user"),
            std::string::npos);
}

TEST(RequireWritableFile, RefusesALinkOfAnotherUserOnTheWayToTheFolder) {
  if (geteuid() != 0) GTEST_SKIP() << "a link of another user needs root to make";
  ScratchFolder dir;
  fs::create_directory(dir / "real");
  fs::create_symlink(dir / "real", dir / "planted");
  ASSERT_EQ(lchown((dir / "planted").c_str(), kNobody, kNoGroup), 0);
  EXPECT_NE(refusal([&] {
              require_writable_file(dir / "planted" / "r.json", "--json");
            }).find("is a symbolic link that belongs to user"),
            std::string::npos);
}

/// The file system's longest name in `folder`.
std::size_t name_max_in(const fs::path& folder) {
  return static_cast<std::size_t>(pathconf(folder.c_str(), _PC_NAME_MAX));
}

TEST(RequireWritableFile, RefusesANameLongerThanTheFileSystemTakesBeforeAnythingRuns) {
  ScratchFolder dir;
  const std::string message =
      refusal([&] { require_writable_file(dir / std::string(300, 'x'), "--json"); });
  EXPECT_NE(message.find("the file name is 300 characters long, more than the"), std::string::npos)
      << message;
}

TEST(RequireWritableFile, LeavesRoomForTheTemporaryFileWrittenFirst) {
  ScratchFolder dir;
  const std::size_t longest = name_max_in(dir.path());
  // A name the file system takes, but whose temporary file (".NAME.<12 hex>.tmp") it would not.
  const std::string too_long(longest - 10, 'x');
  EXPECT_NE(refusal([&] {
              require_writable_file(dir / too_long, "--json");
            }).find("tplab first writes a temporary file 18 characters longer"),
            std::string::npos);
  const std::string fits(longest - 18, 'x');
  EXPECT_EQ(refusal([&] { require_writable_file(dir / fits, "--json"); }), "");
  write_file_safely(dir / fits, "{}", "--json");
  EXPECT_EQ(text_of(dir / fits), "{}");
}

TEST(RequireWritableFile, RefusesAPathLongerThanThePathMaxAndALongFolderName) {
  ScratchFolder dir;
  std::string deep = dir.path().string();
  while (deep.size() <= static_cast<std::size_t>(pathconf("/", _PC_PATH_MAX))) deep += "/folder";
  const std::string message = refusal([&] { require_writable_file(deep + "/r.json", "--json"); });
  EXPECT_NE(message.find("characters long, more than the"), std::string::npos) << message;
  EXPECT_NE(message.find(": the path is "), std::string::npos) << message;
  EXPECT_LT(message.size(), 400u) << "the path is shortened in the message";
  EXPECT_NE(refusal([&] {
              require_writable_file(dir / std::string(300, 'd') / "r.json", "--json");
            }).find("the folder name 'ddd"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              require_output_folder((dir / std::string(300, 'd')).string(), "--out");
            }).find("is 300 characters long"),
            std::string::npos);
}

TEST(WriteFileSafely, WritesTheWholeFileAndLeavesNoTemporary) {
  ScratchFolder dir;
  put(dir / "r.json", "old");
  write_file_safely(dir / "r.json", "new contents\n", "--json");
  EXPECT_EQ(text_of(dir / "r.json"), "new contents\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(WriteFileSafely, ReplacesALinkAtTheTargetAndNeverWritesThroughIt) {
  ScratchFolder dir;
  put(dir / "victim", "precious");
  fs::create_symlink(dir / "victim", dir / "r.json");
  write_file_safely(dir / "r.json", "result", "--json");
  EXPECT_EQ(text_of(dir / "victim"), "precious");
  EXPECT_FALSE(fs::is_symlink(dir / "r.json"));
  EXPECT_EQ(text_of(dir / "r.json"), "result");
}

TEST(WriteFileSafely, RefusesAFolderOthersCouldChange) {
  ScratchFolder dir;
  fs::create_directory(dir / "open");
  chmod((dir / "open").c_str(), 0777);
  EXPECT_NE(refusal([&] {
              write_file_safely(dir / "open" / "r.json", "x", "--json");
            }).find("tplab writes nothing into"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "open" / "r.json"));
}

TEST(WriteFileSafely, NeverReplacesAFolderOrADevice) {
  ScratchFolder dir;
  fs::create_directory(dir / "r.json");
  EXPECT_NE(refusal([&] {
              write_file_safely(dir / "r.json", "x", "--json");
            }).find("only a plain file is replaced"),
            std::string::npos);
  EXPECT_TRUE(fs::is_directory(dir / "r.json"));
  EXPECT_NE(refusal([] { write_file_safely("/dev/full", "x", "--json"); }), "");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(OutputLock, RefusesASecondWriterNamingThePidAndGoesWithItsHolder) {
  ScratchFolder dir;
  const std::string target = (dir / "r.json").string();
  {
    const OutputLock held(target, "--json");
    EXPECT_TRUE(fs::is_regular_file(dir / ".r.json.lock"));
    // flock locks an open file: a second open of it, even in this process, is another holder.
    EXPECT_NE(refusal([&] {
                OutputLock second(target, "--json");
              }).find(fmt::format("another tplab run is writing {} (pid {})", target, getpid())),
              std::string::npos);
    const OutputLock other((dir / "other.json").string(), "--json");  // other files stay free
  }
  EXPECT_FALSE(fs::exists(dir / ".r.json.lock"));
  EXPECT_EQ(refusal([&] { OutputLock again(target, "--json"); }), "");
}

TEST(OutputLock, TakesALockFileAKilledRunLeftButNoLink) {
  ScratchFolder dir;
  put(dir / ".r.json.lock", "12345\n");
  EXPECT_EQ(refusal([&] { OutputLock taken((dir / "r.json").string(), "--json"); }), "");
  put(dir / "victim", "precious");
  fs::create_symlink(dir / "victim", dir / ".s.json.lock");
  EXPECT_NE(refusal([&] {
              OutputLock refused((dir / "s.json").string(), "--json");
            }).find("cannot make its lock file .s.json.lock"),
            std::string::npos);
  EXPECT_EQ(text_of(dir / "victim"), "precious");
}

TEST(OutputFolder, MakesAMissingFolderUnderAParentOfTheUsers) {
  ScratchFolder dir;
  const std::string out = (dir / "out").string() + "/";
  make_output_folder(out, "--out");
  EXPECT_TRUE(fs::is_directory(dir / "out"));
  EXPECT_NE(refusal([&] {
              require_output_folder((dir / "a" / "b").string(), "--out");
            }).find("does not exist"),
            std::string::npos);
  put(dir / "file", "x");
  EXPECT_NE(refusal([&] {
              require_output_folder((dir / "file").string(), "--out");
            }).find("not a folder"),
            std::string::npos);
  EXPECT_NE(refusal([] { require_output_folder("/dev/full", "--out"); }).find("not a folder"),
            std::string::npos);
}

TEST(ReadOwnFile, ReadsAFileOfTheUsersAndRefusesALink) {
  ScratchFolder dir;
  EXPECT_FALSE(read_own_file(dir / "none", "the lesson progress").has_value());
  put(dir / "progress.json", "{}");
  EXPECT_EQ(read_own_file(dir / "progress.json", "the lesson progress"), "{}");
  fs::create_symlink(dir / "progress.json", dir / "link.json");
  EXPECT_NE(refusal([&] {
              read_own_file(dir / "link.json", "the lesson progress");
            }).find("is a symbolic link"),
            std::string::npos);
}

TEST(ReadOwnFile, RefusesAFileOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  ScratchFolder dir;
  put(dir / "progress.json", R"({"01": {"progress": "passed"}})");
  ASSERT_EQ(chown((dir / "progress.json").c_str(), kNobody, kNoGroup), 0);
  EXPECT_NE(refusal([&] {
              read_own_file(dir / "progress.json", "the lesson progress");
            }).find("belongs to user"),
            std::string::npos);
}

}  // namespace
}  // namespace tplab::app
