/// @file
/// The learner's progress through the lessons: what each lesson's last check found, whether it
/// ever passed, and how many hints were shown. Kept in lessons/.progress.json of the source tree
/// (git ignores it, and it outlives the build folder), or where $TPLAB_LESSON_PROGRESS says.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "lesson_verdict.hpp"

namespace tplab::app {

/// The environment variable that names another progress file (the tests use their own).
inline constexpr const char* kLessonProgressVariable = "TPLAB_LESSON_PROGRESS";

/// Where a learner stands on one lesson.
struct LessonProgress {
  bool checked = false;                          ///< the lesson was checked at least once
  LessonState state = LessonState::not_started;  ///< what the last check found
  std::vector<PartVerdict> parts;                ///< each part's verdict at the last check
  std::string first_failed;                      ///< the first tensor that failed at the last check
  bool passed_before = false;  ///< it passed once (only `lesson reset` forgets it)
  int hints_shown = 0;         ///< how many of its hints were shown

  /// "passed", "wrong", "in progress", "not started"; "passed before, now wrong" when it passed
  /// once and no longer does.
  std::string words() const;
};

/// The progress file: {"01": {"state", "parts", "first_failed", "passed_before",
/// "hints_shown"}, ...}. A convenience for `lesson list`, `next` and `hint`, which the learner
/// can edit, so `lesson grade` never reads it. Read through no link, written by the rules of
/// safe_output.hpp; a file of an older version ({"01": {"progress": "passed"}}) reads as well.
class ProgressFile {
 public:
  /// Reads the progress kept at `path` (none yet when the file does not exist).
  explicit ProgressFile(std::filesystem::path path);
  /// Where the learner stands on `lesson`.
  LessonProgress lesson(int lesson) const;
  /// Records what a check of `lesson` found and saves the file; a pass is remembered for good.
  void record_check(int lesson, const LessonSummary& summary);
  /// Records that `count` hints of `lesson` have been shown and saves the file.
  void set_hints_shown(int lesson, int count);
  /// Forgets a lesson (after reset).
  void forget(int lesson);

 private:
  void save() const;
  std::filesystem::path path_;
  std::string json_;  // the file's text, parsed on use: the file is tiny
};

/// Where the progress is kept: $TPLAB_LESSON_PROGRESS when set, else
/// `source_dir`/lessons/.progress.json.
std::filesystem::path progress_path(const std::filesystem::path& source_dir);

/// Moves the progress file of an older version (`old_path`, in the build folder) to
/// `new_path`, once: only when `new_path` does not exist yet. Returns whether it moved one.
bool adopt_old_progress(const std::filesystem::path& old_path,
                        const std::filesystem::path& new_path);

}  // namespace tplab::app
