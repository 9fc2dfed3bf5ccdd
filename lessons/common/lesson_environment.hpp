/// @file
/// The environment through which `tplab lesson check` and `grade` give a lesson program its
/// role (lesson.hpp, LessonRole): the folder the exercise's ranks write their transcripts to,
/// the folder the judge reads them from, the file the judge writes its verdict to (the
/// exercise's job never sees the last two), and the seed both draw the check's inputs from.
#pragma once

namespace tplab::lessons {

inline constexpr const char* kTranscriptVariable = "TPLAB_LESSON_TRANSCRIPT";
inline constexpr const char* kJudgeVariable = "TPLAB_LESSON_JUDGE";
inline constexpr const char* kVerdictVariable = "TPLAB_LESSON_VERDICT";
inline constexpr const char* kSeedVariable = "TPLAB_LESSON_SEED";

}  // namespace tplab::lessons
