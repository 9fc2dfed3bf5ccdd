/// @file
/// The lessons on disk: lessons/NN-slug/lesson.json, README.md and the hints.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tplab::app {

/// One hint of a lesson.json: a string (a general hint) or {"for": ["Y", "d_W1"], "text"}
/// (a hint about those tensors, as the lesson's check names them).
struct LessonHint {
  std::vector<std::string> tensors;  ///< the tensors it is about; empty for a general hint
  std::string text;                  ///< the hint

  /// Whether it is about `tensor`, matched without regard to case ("d_W1" is "d_w1").
  bool about(const std::string& tensor) const;
};

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
  std::vector<LessonHint> hints;
  /// Whether the exercise ships runnable with bugs in it rather than with TODOs (lesson.json's
  /// "kind": "bug hunt"): untouched, it is wrong, not "not started".
  bool bug_hunt = false;

  /// "lesson_01": the CMake target of the exercise (the solution's adds "_solution").
  std::string target() const;
};

/// Every lesson under `lessons_dir`, by number. Throws UsageError naming a lesson.json that
/// cannot be read.
std::vector<LessonInfo> load_lessons(const std::filesystem::path& lessons_dir);

/// The lesson numbered `number`; throws UsageError naming the lessons that exist.
const LessonInfo& find_lesson(const std::vector<LessonInfo>& lessons, int number);

/// The hints of `l` in the order `lesson hint` gives them. After a check that failed at
/// `first_failed` (the first tensor that failed, matched without regard to case): the hints
/// about that tensor, then the general ones (no "for": they hold for any failure of the
/// lesson), then those about the other tensors, which the failure does not point to. With
/// nothing failed ("": no check yet, or none wrong), every hint in the file's order, which
/// follows the exercise's steps.
std::vector<const LessonHint*> hints_in_order(const LessonInfo& l, const std::string& first_failed);

/// A lesson's README with each worked answer (a <details>...</details> block) replaced by
/// "(answer hidden: ./tplab lesson show N --answers)".
std::string readme_without_answers(const std::string& readme, int lesson_number);

}  // namespace tplab::app
