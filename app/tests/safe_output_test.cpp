// The rules for files tplab writes on the user's behalf: each refusal, and what is accepted.
#include "safe_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/error.hpp"
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
