// The private job folder and the results in it: what the launcher accepts as a job's own result
// and what it refuses (links, other users' files, files without the job's token).
#include "job_folder.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "core/error.hpp"
#include "job_result.hpp"
#include "scratch_folder.hpp"

namespace tplab::app {
namespace {

namespace fs = std::filesystem;
using testing::kNobody;
using testing::kNoGroup;
using testing::put;
using testing::ScratchFolder;

/// Points TMPDIR at `folder` for one test and puts the old value back.
class TmpdirAt {
 public:
  explicit TmpdirAt(const fs::path& folder) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", folder.c_str(), 1);
  }
  ~TmpdirAt() {
    if (old_.empty()) {
      unsetenv("TMPDIR");
    } else {
      setenv("TMPDIR", old_.c_str(), 1);
    }
  }

 private:
  std::string old_;
};

TEST(JobFolder, IsAFreshPrivateFolderRemovedWithEverythingInIt) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  fs::path made;
  {
    const JobFolder folder;
    made = folder.path();
    EXPECT_EQ(made.parent_path(), tmp.path());
    struct stat st {};
    ASSERT_EQ(lstat(made.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_EQ(st.st_uid, geteuid());
    EXPECT_EQ(job_token().size(), 32u) << "the token is exported while the folder lives";
    put(folder.file("job-0.json"), "{}");
  }
  EXPECT_FALSE(fs::exists(made));
  EXPECT_EQ(job_token(), "");
}

TEST(JobFolder, TwoFoldersNeverShareANameOrAToken) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder first;
  const std::string first_token = job_token();
  const JobFolder second;
  EXPECT_NE(first.path(), second.path());
  EXPECT_NE(first_token, job_token());
}

TEST(JobFolder, RefusesATmpdirEveryUserMayWriteIntoWithoutTheStickyBit) {
  ScratchFolder tmp;
  fs::create_directory(tmp / "open");
  chmod((tmp / "open").c_str(), 0777);
  const TmpdirAt at(tmp / "open");
  try {
    const JobFolder folder;
    FAIL() << "a job folder was made in a folder every user may change";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("TMPDIR="), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no sticky bit"), std::string::npos) << e.what();
  }
}

TEST(JobFolder, AcceptsTheResultTheJobWroteWithItsToken) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder folder;
  EXPECT_EQ(folder.read("job-0.json").state, JobResult::State::missing);
  require_result_target(folder.file("job-0.json"), "--json");
  write_result(folder.file("job-0.json"), {{"runs", {1, 2}}}, "--json");
  const JobResult result = folder.read("job-0.json");
  ASSERT_EQ(result.state, JobResult::State::accepted) << result.why_rejected;
  EXPECT_EQ(result.document, (nlohmann::json{{"runs", {1, 2}}}));
}

TEST(JobFolder, AJobStartsOnlyOnAFreeNameAndItsResultReplacesItsProgress) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder folder;
  const std::string file = folder.file("job-0.json");
  write_progress(file, {{"runs", 1}}, "--json");
  EXPECT_EQ(folder.read("job-0.json").document, nlohmann::json({{"runs", 1}}));
  EXPECT_THROW(require_result_target(file, "--json"), UsageError)
      << "a job refuses a name already taken when it starts";
  write_result(file, {{"runs", 2}}, "--json");
  const JobResult result = folder.read("job-0.json");
  EXPECT_EQ(result.state, JobResult::State::accepted);
  EXPECT_EQ(result.document, nlohmann::json({{"runs", 2}}));
}

TEST(JobFolder, AJobWritesNothingIntoAFolderThatIsNotPrivate) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder folder;  // exports a token: the ranks' results go to job folders
  fs::create_directory(tmp / "shared");
  chmod((tmp / "shared").c_str(), 0777);
  EXPECT_THROW(write_result((tmp / "shared" / "job-0.json").string(), {}, "--json"), UsageError);
  EXPECT_FALSE(fs::exists(tmp / "shared" / "job-0.json"));
}

TEST(JobFolder, RejectsALinkAndNeverReadsThroughIt) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder folder;
  put(tmp / "forged.json", R"({"runs": [{"pass": true}]})");
  fs::create_symlink(tmp / "forged.json", folder.file("job-0.json"));
  const JobResult result = folder.read("job-0.json");
  EXPECT_EQ(result.state, JobResult::State::rejected);
  EXPECT_EQ(result.why_rejected, "it is a symbolic link");
}

TEST(JobFolder, RejectsAResultWithoutThisJobsToken) {
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder folder;
  put(folder.file("job-0.json"), R"({"runs": [{"pass": true}], "job_token": "0123"})");
  const JobResult forged = folder.read("job-0.json");
  EXPECT_EQ(forged.state, JobResult::State::rejected);
  EXPECT_NE(forged.why_rejected.find("token"), std::string::npos);
  put(folder.file("job-1.json"), R"({"runs": [{"pass": true}]})");
  EXPECT_EQ(folder.read("job-1.json").state, JobResult::State::rejected);
  put(folder.file("job-2.json"), R"({"runs": [)");
  EXPECT_EQ(folder.read("job-2.json").state, JobResult::State::rejected);
}

TEST(JobFolder, RejectsAResultOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  ScratchFolder tmp;
  const TmpdirAt at(tmp.path());
  const JobFolder folder;
  write_result(folder.file("job-0.json"), {{"runs", 1}}, "--json");
  ASSERT_EQ(chown(folder.file("job-0.json").c_str(), kNobody, kNoGroup), 0);
  const JobResult result = folder.read("job-0.json");
  EXPECT_EQ(result.state, JobResult::State::rejected);
  EXPECT_EQ(result.why_rejected, "it belongs to another user");
}

}  // namespace
}  // namespace tplab::app
