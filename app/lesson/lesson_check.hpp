/// @file
/// Checking one lesson: build its program (the learner's exercise or the library's solution),
/// run it under mpiexec at each of its world sizes, and collect what it found, tensor by
/// tensor. `lesson check` and `lesson grade` both take this path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "job_folder.hpp"
#include "lesson_catalog.hpp"
#include "lesson_verdict.hpp"
#include "mpi_launch.hpp"

namespace tplab::app {

/// One run of a lesson program at one world size.
struct LessonWorldRun {
  /// The world size.
  int np = 1;
  /// How the job ended.
  JobEnd end;
  /// What the judge wrote of the exercise's run (lesson_verdict.hpp): {"verdict", "parts",
  /// "first_failed", "reports": [{"title", "part", "checks": [{"name", "pass", ...}]}]}.
  JobResult result;

  /// The verdict the program wrote; nothing when the job failed or left none.
  std::optional<RunVerdict> verdict() const;
  /// The job did not end normally: it crashed (a signal, an abort, an exit other than 0 or 2)
  /// or ran past its deadline. The program writes its findings and exits 0 otherwise.
  bool job_failed() const;
  /// How a failed job ended, and where: "crashed with SIGSEGV (Segmentation fault) at 2 ranks",
  /// "timed out after 15 s at 2 ranks", "crashed (exit 3) at 4 ranks".
  std::string how_it_failed(int timeout_seconds) const;
};

/// What checking a lesson found.
struct LessonRun {
  /// The source checked: the lesson's exercise.cpp, a submission's copy of it, or its
  /// solution.cpp.
  std::filesystem::path source;
  /// The seed the check's inputs were drawn with (0: the inputs the lesson ships with).
  std::uint64_t seed = 0;
  /// The program built from it and run under mpiexec.
  std::filesystem::path program;
  /// The SHA-256 of that source and of the lesson's check.cpp, as they were compiled.
  ///@{
  std::string source_sha256, check_sha256;
  ///@}
  /// How a check can end, in the order it is decided.
  enum class Outcome { does_not_compile, refused, checked };
  /// How this one ended.
  Outcome outcome = Outcome::checked;
  /// does_not_compile: the compiler's and the link fence's messages, without the build tool's
  /// progress and command lines (compiler_messages.hpp).
  std::string compiler_output;
  /// Every world size run, in order. The check stops at one that refuses its input, and at the
  /// first whose job failed (LessonWorldRun::job_failed), since the larger ones would crash or
  /// loop alike, a loop costing a whole --timeout each; a part not started at one world size
  /// leaves the others to check the parts that are.
  std::vector<LessonWorldRun> runs;
  /// checked: what the runs say together, part by part.
  LessonSummary summary;

  /// The run whose job failed (the last one run), or null when none did.
  const LessonWorldRun* failed_job() const;
};

/// How to check a lesson.
struct CheckRequest {
  /// The library's solution instead of the exercise.
  bool solution = false;
  /// The world sizes to run (empty: the lesson's own).
  std::vector<int> world_sizes;
  /// Every job's deadline.
  int timeout_seconds = 120;
  /// The seed of the check's inputs (0: the inputs the lesson ships with).
  std::uint64_t seed = 0;
  /// The exercise to check, from anywhere (a student's submission); empty: the lesson's own
  /// exercise.cpp.
  std::filesystem::path exercise;
  /// The trace file of the exercise's job at each world size (`lesson check --trace`); a world
  /// size without one is not traced.
  std::map<int, std::string> traces;
};

/// Builds lesson `l`'s program (its solution with `solution`) from the sources as they are
/// (renewing their time stamps when their content changed since the last build, so that a file
/// copied in with an old time stamp is compiled all the same) and runs it at each world size,
/// printing the tables as it goes. At each world size two jobs run one after the other: the
/// exercise's, whose ranks write only what they produced (their transcripts, into a private
/// JobFolder), and the judge's, the lesson's program built from the library's solution, which
/// runs none of the exercise's code and compares those transcripts with the reference. Only the
/// judge's job is told where to write its verdict, into a JobFolder made after the exercise's
/// job ended; it is read back only when it is that job's own.
LessonRun check_lesson(const LessonInfo& l, const CheckRequest& request);

}  // namespace tplab::app
