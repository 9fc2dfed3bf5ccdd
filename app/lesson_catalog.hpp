/// @file
/// The lessons on disk (lessons/NN-slug/lesson.json) and the learner's progress through them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tplab::app {

/// One lesson, as its lesson.json and folder describe it.
struct LessonInfo {
  /// NN of the folder's name: 0, 1, 2, ...
  int number = 0;
  std::string slug;  ///< the folder's name, e.g. "01-column-split"
  /// The lesson's folder, lessons/NN-slug.
  std::filesystem::path dir;
  /// One line for `lesson list`.
  std::string title;
  /// What the learner writes and learns, for `lesson show`.
  std::string goal;
  /// The world sizes `lesson check` runs at.
  std::vector<int> world_sizes;
  /// The hints `lesson hint` gives, one at a time.
  std::vector<std::string> hints;

  /// "lesson_01": the CMake target of the exercise (the solution's adds "_solution").
  std::string target() const;
};

/// Every lesson under `lessons_dir`, by number.
std::vector<LessonInfo> load_lessons(const std::filesystem::path& lessons_dir);

/// The lesson numbered `number`; throws UsageError naming the lessons that exist.
const LessonInfo& find_lesson(const std::vector<LessonInfo>& lessons, int number);

/// Where a learner stands on one lesson.
enum class Progress { not_started, wrong, passed };

/// "not started", "wrong", "passed".
std::string progress_name(Progress p);

/// The learner's progress, kept as JSON in a small file of the build tree
/// ({"01": {"progress": "wrong", "hints_shown": 2}, ...}): a convenience for `lesson list` and
/// `lesson hint`, which the learner can edit, so `lesson grade` never reads it. Read through no
/// link and written by the rules of safe_output.hpp.
class ProgressFile {
 public:
  /// Reads the progress kept at `path` (none yet when the file does not exist).
  explicit ProgressFile(std::filesystem::path path);
  /// Where the learner stands on `lesson` (not_started when it was never checked).
  Progress progress(int lesson) const;
  /// How many of `lesson`'s hints have been shown.
  int hints_shown(int lesson) const;
  /// Records `p` for `lesson` and saves the file.
  void set_progress(int lesson, Progress p);
  /// Records that `count` hints of `lesson` have been shown and saves the file.
  void set_hints_shown(int lesson, int count);
  /// Forgets a lesson (after reset).
  void forget(int lesson);

 private:
  void save() const;
  std::filesystem::path path_;
  std::string json_;  // the file's text, parsed on use: the file is tiny
};

}  // namespace tplab::app
