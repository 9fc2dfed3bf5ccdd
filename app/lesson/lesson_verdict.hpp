/// @file
/// What a lesson program found: the verdict file it writes at one world size under
/// `tplab lesson check`, and what the runs at every world size say together, part by part
/// (forward, backward) and for the lesson as a whole.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tplab::app {

/// One part of a lesson (its forward, its backward) as one run judged it.
struct PartVerdict {
  std::string name;     ///< "forward", "backward"
  std::string verdict;  ///< "pass", "wrong" or "not_started"
  std::string todo;     ///< the TODO that stopped a part not started ("file:line"), else ""
};

/// What a lesson program wrote at one world size:
/// {"verdict", "parts": [{"name", "verdict", "todo"}], "first_failed", "reports"}. A program of
/// an older version writes no "parts": its whole run is then one part named "forward".
struct RunVerdict {
  std::string verdict;             ///< "pass", "wrong", "not_started" or "in_progress"
  std::vector<PartVerdict> parts;  ///< each part's verdict, in the order the program ran them
  std::string first_failed;        ///< the first tensor that failed, in report order; "" when none
};

/// Reads a verdict file's document, in either form; nothing when it holds no known verdict.
std::optional<RunVerdict> parse_run_verdict(const nlohmann::json& document);

/// The tensors one report of a verdict file compared (its "tensors", or "checks").
const nlohmann::json& report_tensors(const nlohmann::json& report);

/// Where a learner stands on a lesson.
enum class LessonState { not_started, in_progress, wrong, passed };

/// "not_started", "in_progress", "wrong", "passed": the state as the progress file keeps it.
std::string state_key(LessonState state);
/// The state a key names (not_started for one it does not know).
LessonState state_from_key(const std::string& key);
/// "not started", "in progress", "wrong", "passed": the state in words.
std::string state_words(LessonState state);

/// One part over every world size of a check.
struct PartSummary {
  std::string name;  ///< "forward", "backward"
  /// The world sizes at which the part passed, was wrong, or was not started.
  ///@{
  std::vector<int> passed_at, wrong_at, not_started_at;
  ///@}
  std::string todo;  ///< the first TODO met in the part, "file:line"

  /// "wrong" when it was wrong anywhere, else "not_started" when not started anywhere,
  /// else "pass".
  std::string verdict() const;
};

/// The verdict of one world size's run; nothing when it left none (it crashed, timed out).
struct WorldVerdict {
  int np = 1;                         ///< the world size
  std::optional<RunVerdict> verdict;  ///< what the run wrote
};

/// What a check found at every world size, together.
struct LessonSummary {
  /// passed: every part passed everywhere; wrong: a part was wrong somewhere or a run left no
  /// verdict; not_started: no part was written; in_progress: the rest.
  LessonState state = LessonState::not_started;
  std::vector<PartSummary> parts;  ///< in the order the program reported them
  std::string first_failed;        ///< the first tensor that failed, at the first size it did
  std::vector<int> no_verdict_at;  ///< the world sizes whose run left no verdict
};

/// Puts the runs of one check together.
LessonSummary summarize(const std::vector<WorldVerdict>& runs);

/// One line for a part: "forward: passed at 1, 2, 4 ranks", "backward: not started (TODO at
/// exercise.cpp:42)", "forward: WRONG at 2, 4 ranks (passed at 1)". A TODO inside
/// `lesson_dir` is named relative to it.
std::string describe_part(const PartSummary& part, const std::filesystem::path& lesson_dir);

}  // namespace tplab::app
