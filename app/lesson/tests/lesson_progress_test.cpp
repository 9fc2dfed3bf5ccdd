// The learner's progress file: what a check records, that a pass is never forgotten, the file
// of an older version, and its one-time move out of the build folder.
#include "lesson_progress.hpp"

#include <gtest/gtest.h>

#include "scratch_folder.hpp"

namespace tplab::app {
namespace {

using testing::put;
using testing::ScratchFolder;
using testing::text_of;

LessonSummary summary(LessonState state, const std::string& first_failed = "") {
  return {state, {{"forward", {1, 2}, {}, {}, ""}}, first_failed, {}};
}

TEST(ProgressFile, RecordsAChecksStatePartsAndFirstFailedTensor) {
  ScratchFolder dir;
  ProgressFile(dir / "p.json").record_check(3, summary(LessonState::wrong, "d_w1"));
  const LessonProgress p = ProgressFile(dir / "p.json").lesson(3);
  EXPECT_TRUE(p.checked);
  EXPECT_EQ(p.state, LessonState::wrong);
  EXPECT_EQ(p.first_failed, "d_w1");
  ASSERT_EQ(p.parts.size(), 1u);
  EXPECT_EQ(p.parts[0].verdict, "pass");
  EXPECT_FALSE(p.passed_before);
  EXPECT_EQ(p.words(), "wrong");
}

TEST(ProgressFile, APassIsNeverForgottenByALaterCheck) {
  ScratchFolder dir;
  ProgressFile progress(dir / "p.json");
  progress.record_check(3, summary(LessonState::passed));
  progress.record_check(3, summary(LessonState::wrong, "y"));
  const LessonProgress p = ProgressFile(dir / "p.json").lesson(3);
  EXPECT_EQ(p.state, LessonState::wrong);
  EXPECT_TRUE(p.passed_before);
  EXPECT_EQ(p.words(), "passed before, now wrong");
}

TEST(ProgressFile, ResetForgetsTheLessonAndKeepsTheHintsApart) {
  ScratchFolder dir;
  ProgressFile progress(dir / "p.json");
  progress.record_check(1, summary(LessonState::passed));
  progress.set_hints_shown(1, 2);
  progress.record_check(1, summary(LessonState::passed));
  EXPECT_EQ(progress.lesson(1).hints_shown, 2);
  progress.forget(1);
  EXPECT_FALSE(progress.lesson(1).passed_before);
  EXPECT_FALSE(progress.lesson(1).checked);
}

TEST(ProgressFile, ReadsTheFileOfAnOlderVersion) {
  ScratchFolder dir;
  put(dir / "p.json", R"({"01": {"progress": "passed", "hints_shown": 2},
                          "02": {"progress": "wrong"}})");
  const ProgressFile progress(dir / "p.json");
  EXPECT_EQ(progress.lesson(1).state, LessonState::passed);
  EXPECT_TRUE(progress.lesson(1).passed_before);
  EXPECT_EQ(progress.lesson(1).hints_shown, 2);
  EXPECT_EQ(progress.lesson(2).state, LessonState::wrong);
  EXPECT_FALSE(progress.lesson(4).checked);
}

TEST(AdoptOldProgress, MovesTheOldFileOnceAndNeverOverTheNewOne) {
  ScratchFolder dir;
  put(dir / "old.json", R"({"01": {"progress": "passed"}})");
  EXPECT_TRUE(adopt_old_progress(dir / "old.json", dir / "new.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "old.json"));
  EXPECT_TRUE(ProgressFile(dir / "new.json").lesson(1).passed_before);
  put(dir / "old.json", R"({"02": {"progress": "passed"}})");
  EXPECT_FALSE(adopt_old_progress(dir / "old.json", dir / "new.json"));
  EXPECT_EQ(text_of(dir / "new.json"), R"({"01": {"progress": "passed"}})");
  EXPECT_FALSE(adopt_old_progress(dir / "none.json", dir / "other.json"));
}

}  // namespace
}  // namespace tplab::app
