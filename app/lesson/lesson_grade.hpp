/// @file
/// `tplab lesson grade`: every lesson's check run again on the exercise as it stands, wherever
/// the grader runs it (an autograder's container, an instructor's account), and scored tensor
/// by tensor in Gradescope's results.json form.
///
/// Grades come from checks, never from the progress file, which a learner can edit. Each
/// tensor a lesson's check compares is one test worth one point, earned when it agrees with
/// the reference at every world size of the lesson; a lesson has the same tests whatever state
/// its exercise is in (the library's solution names them when the exercise's check did not
/// reach them all). A part of the lesson still holding a TODO earns nothing for its tensors; an
/// exercise that does not compile, has no part written, or is refused at a world size earns
/// nothing.
/// Every grade carries the SHA-256 of the source it checked (exercise.cpp, or solution.cpp
/// with --solution) and of the lesson's checker, so an instructor can tell which submission
/// was graded, by which check.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
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

/// A report's title with the world size taken out, for a test's name, which must be the same
/// at every world size and for every submission: "SUMMA on a 3 x 3 grid, exact" becomes "SUMMA
/// on a q x q grid, exact"; ", d = 2", ", q = 2", " (p = 4 ranks)" and " on 4 ranks" go.
/// Numbers that belong to the title ("f64 tolerance", "mean 1") stay.
std::string size_free_title(const std::string& title);

/// The share of its tolerance a tensor used ("tolerance_used" of a verdict file), in percent:
/// "37%", ">1000%" past ten times the tolerance (a wrong answer's share says nothing more
/// there, and an exact check's tolerance of 0 makes it astronomical). Not a number: infinite
/// (">1000%") for a tensor that `failed`, which is how a verdict file writes an Inf, else "-".
std::string tolerance_share(const nlohmann::json& share, bool failed);

/// One world size's finding on one tensor of a verdict file, for a test's output: "np=2: ok,
/// max_abs 1.11e-16, 0% of the tolerance used", or "np=4: FAIL, max_abs 3, >1000% of the
/// tolerance used; worst at Y[3, 5] (block rows 0..5, cols 4..7, held by rank 3): got 1,
/// reference 4; wrong on ranks 1, 3; right on ranks 0, 2".
std::string describe_tensor(int np, const nlohmann::json& t);

}  // namespace tplab::app
