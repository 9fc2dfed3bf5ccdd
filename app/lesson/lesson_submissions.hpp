/// @file
/// Grading a class: `tplab lesson grade --submissions DIR`, one folder per student.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "lesson_catalog.hpp"

namespace tplab::app {

/// Grades every student's folder of `submissions` (each laid out as lessons/: NN-slug/
/// exercise.cpp, a lesson it lacks graded as not submitted), one student after the other, each
/// built and checked apart, with the inputs of `seed`. Writes `out`/STUDENT/results.json
/// (Gradescope's form, as `lesson grade --json` writes it) and `out`/gradebook.csv with one
/// row per student and lesson: student, lesson, score, max_score. Returns 0 once every student
/// is graded, whatever the grades; 2 when `submissions` holds no student's folder.
int grade_submissions(const std::vector<LessonInfo>& lessons,
                      const std::filesystem::path& submissions, const std::filesystem::path& out,
                      int timeout_seconds, std::uint64_t seed);

}  // namespace tplab::app
