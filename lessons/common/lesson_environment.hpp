/// @file
/// The environment through which `tplab lesson check` and `grade` give a lesson program its
/// role (lesson.hpp, LessonRole): the folder the exercise's ranks write their transcripts to,
/// the folder the judge reads them from, the file the judge writes its verdict to (the
/// exercise's job never sees the last two), and the seed both draw the check's inputs from.
#pragma once

namespace tplab::lessons {

/// The exercise's job: the folder its ranks write their transcripts to.
inline constexpr const char* kTranscriptVariable = "TPLAB_LESSON_TRANSCRIPT";
/// The judge's job: the folder of the exercise's transcripts it judges.
inline constexpr const char* kJudgeVariable = "TPLAB_LESSON_JUDGE";
/// The judge's job: the file its rank 0 writes the verdict to.
inline constexpr const char* kVerdictVariable = "TPLAB_LESSON_VERDICT";
/// The judge (and a program run alone): the seed of the check's inputs (lesson.hpp,
/// input_seed). The exercise's job reads it from a file it removes (lesson.cpp).
inline constexpr const char* kSeedVariable = "TPLAB_LESSON_SEED";
/// The exercise's job (and a program run alone): the Chrome trace file its ranks' timelines go
/// to (`lesson check --trace`). The judge runs none of the exercise's code and traces nothing.
inline constexpr const char* kTraceVariable = "TPLAB_LESSON_TRACE";

}  // namespace tplab::lessons
