/// @file
/// `tplab lesson grade`: every lesson's check run again on the exercise as it stands, wherever
/// the grader runs it (an autograder's container, an instructor's account), and scored tensor
/// by tensor in Gradescope's results.json form.
///
/// Grades come from checks, never from the progress file, which a learner can edit. Each
/// lesson is worth one point, shared equally by the tensors its check compares; a tensor earns
/// its share when it agrees with the reference at every world size of the lesson. A part of the
/// lesson still holding a TODO earns nothing for its tensors; an exercise that does not
/// compile, has no part written, or is refused at a world size earns nothing.
/// Every grade carries the SHA-256 of the source it checked (exercise.cpp, or solution.cpp
/// with --solution) and of the lesson's checker, so an instructor can tell which submission
/// was graded, by which check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lesson_catalog.hpp"

namespace tplab::app {

/// Grades `lessons` (their solutions with `solution`), prints a table of the grades, and writes
/// them to `json` when given: {"score", "output", "tests": [{"name", "number", "score",
/// "max_score", "output", "extra_data"}], "extra_data": {"lessons": [...]}}. Returns the exit
/// code: 0 once every lesson is graded, whatever the grades.
/// Every check's inputs come from `seed`. With `submission` (a folder laid out as lessons/, one
/// NN-slug/exercise.cpp per lesson), its exercises are graded instead of the checkout's; a
/// lesson it lacks is graded as not submitted.
int grade_lessons(const std::vector<LessonInfo>& lessons, bool solution,
                  const std::optional<std::string>& json, int timeout_seconds, std::uint64_t seed,
                  const std::filesystem::path& submission = {});

}  // namespace tplab::app
