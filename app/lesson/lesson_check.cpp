#include "lesson_check.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

#include "compiler_messages.hpp"
#include "core/error.hpp"
#include "lesson_paths.hpp"
#include "lessons/common/lesson_environment.hpp"
#include "safe_output.hpp"
#include "sha256.hpp"

namespace tplab::app {
namespace {

/// Builds `target` in the build tree; returns nothing when it built, else the compiler's and
/// the link fence's messages (compiler_messages: never the build tool's command lines).
std::optional<std::string> build_target(const std::string& target) {
  const std::string command =
      fmt::format("cmake --build '{}' --target {} 2>&1", kBinaryDir.string(), target);
  fmt::print("building {} ...\n", target);
  std::fflush(stdout);
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw InternalError("could not run cmake --build");
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  if (pclose(pipe) == 0) return std::nullopt;
  return compiler_messages(output, kBinaryDir, TPLAB_SOURCE_DIR);
}

/// A source of a lesson's program and its digest as it is now.
struct BuiltSource {
  std::filesystem::path path;
  std::string sha256;
};

/// Makes the build compile `sources` as they are now. A file copied in with its old time stamp
/// (a submission unpacked into a checkout built before) would look older than the program and
/// not be compiled again; so each source whose digest differs from the one `record` kept of the
/// last build has its time stamp renewed, and only those: the check, the same for every student
/// of a class, is not compiled again for each. The record then holds these digests before the
/// build starts, so that it names what the build last compiled even when the build fails: a
/// submission that failed between two alike would otherwise leave the second one its object.
void renew_if_changed(const std::vector<BuiltSource>& sources,
                      const std::filesystem::path& record) {
  std::string digests;
  for (const BuiltSource& source : sources) digests += source.sha256 + "\n";
  const std::string last = read_own_file(record, "the record of the last build").value_or("");
  if (last == digests) return;
  std::istringstream last_lines(last);
  for (const BuiltSource& source : sources) {
    std::string last_sha256;
    std::getline(last_lines, last_sha256);
    if (last_sha256 == source.sha256) continue;
    if (utimensat(AT_FDCWD, source.path.c_str(), nullptr, 0) != 0) {
      throw UsageError(
          fmt::format("cannot renew the time stamp of {} so that it is compiled "
                      "again ({})",
                      source.path.string(), std::strerror(errno)));
    }
  }
  write_file_safely(record, digests, "the record of the last build");
}

/// The link the build compiles lesson `l`'s exercise through (lessons/CMakeLists.txt).
std::filesystem::path exercise_link(const LessonInfo& l) {
  return kBinaryDir / "lessons" / "exercise" / fmt::format("{:02d}", l.number) / "exercise.cpp";
}

/// Points the exercise's link at `source`, where it points elsewhere.
void point_exercise_at(const LessonInfo& l, const std::filesystem::path& source) {
  const std::filesystem::path link = exercise_link(l);
  std::error_code error;
  if (std::filesystem::read_symlink(link, error) == source) return;
  std::filesystem::create_directories(link.parent_path());
  std::filesystem::remove(link, error);
  std::filesystem::create_symlink(source, link, error);
  if (error) {
    throw UsageError(
        fmt::format("cannot link {} to {} ({})", link.string(), source.string(), error.message()));
  }
}

/// Points the exercise's link at a source for one check; a submission's (from elsewhere) is
/// pointed back at the lesson's own exercise.cpp when the check ends, however it ends, with its
/// time stamp renewed: a later `cmake --build` (the shipped exercises' compile test, a learner's
/// own build) then compiles the checkout's exercise, never the last student's.
class ExerciseLink {
 public:
  ExerciseLink(const LessonInfo& l, const std::filesystem::path& source)
      : lesson_(l), own_(l.dir / "exercise.cpp"), borrowed_(source != own_) {
    point_exercise_at(l, source);
  }
  ~ExerciseLink() {
    if (!borrowed_) return;
    try {
      point_exercise_at(lesson_, own_);
    } catch (const std::exception&) {
      return;  // `lesson check` points it right again before it builds
    }
    utimensat(AT_FDCWD, own_.c_str(), nullptr, 0);
  }
  ExerciseLink(const ExerciseLink&) = delete;
  ExerciseLink& operator=(const ExerciseLink&) = delete;

 private:
  const LessonInfo& lesson_;
  std::filesystem::path own_;
  bool borrowed_;
};

/// `text` with every mention of the exercise's link (by its full path, or from the checkout as
/// compiler_messages names files) replaced by the source it points at, named as the compiler's
/// messages name files: the compiler saw the exercise by its link, the learner knows it by its
/// own path.
std::string with_source_path(std::string text, const LessonInfo& l,
                             const std::filesystem::path& source) {
  const std::filesystem::path checkout = TPLAB_SOURCE_DIR;
  const auto from_checkout = [&](const std::filesystem::path& p) {
    const std::filesystem::path inside = p.lexically_relative(checkout);
    return inside.empty() || inside.begin()->string() == ".." ? p.string() : inside.string();
  };
  const std::string shown = from_checkout(source);
  for (const std::string& link : {exercise_link(l).string(), from_checkout(exercise_link(l))}) {
    for (std::size_t at = text.find(link); at != std::string::npos; at = text.find(link, at)) {
      text.replace(at, link.size(), shown);
      at += shown.size();
    }
  }
  return text;
}

/// A TODO's place, "file:line", with the file made absolute: the compiler may have seen it by a
/// path relative to the build folder (ccache's base folder makes it so).
std::string todo_from_build_folder(const std::string& todo) {
  const std::size_t colon = todo.rfind(':');
  if (todo.empty() || todo.starts_with("/") || colon == std::string::npos) return todo;
  const std::filesystem::path file = (kBinaryDir / todo.substr(0, colon)).lexically_normal();
  return file.string() + todo.substr(colon);
}

/// Sets an environment variable for the jobs started while it lives.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value) : name_(name) {
    setenv(name_, value.c_str(), 1);
  }
  ~ScopedVariable() { unsetenv(name_); }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
};

/// Runs the lesson's `program` on `np` ranks as the exercise's job, then `judge` on as many as
/// the judge of what it produced.
LessonWorldRun run_at(const LessonInfo& l, bool solution, const std::filesystem::path& program,
                      const std::filesystem::path& judge, int np, const CheckRequest& request) {
  fmt::print("\n==== lesson {:02d}{} on {} rank{} ====\n", l.number,
             solution ? " (the library's solution)" : "", np, np == 1 ? "" : "s");
  std::fflush(stdout);
  const LaunchSettings settings{request.timeout_seconds, {}};
  LessonWorldRun at{np, {}, {}};
  const JobFolder transcripts;
  // The exercise's job reads its seed from this file and removes it before the exercise runs
  // (lesson.cpp, read_run_seed); only the judge has it in its environment.
  write_file_safely(transcripts.path() / "seed", std::to_string(request.seed), "the run's seed");
  {
    const ScopedVariable folder(lessons::kTranscriptVariable, transcripts.path().string());
    const auto trace = request.traces.find(np);
    std::optional<ScopedVariable> traced;
    if (trace != request.traces.end()) traced.emplace(lessons::kTraceVariable, trace->second);
    at.end = run_program_under_mpiexec(program.string(), np, {}, settings);
  }
  if (at.end.code != 0) return at;
  // The verdict's folder is made now, after the exercise's job has ended, and only the judge's
  // job is told of it (and given its token).
  const JobFolder verdicts;
  const std::string name = fmt::format("lesson-np{}.json", np);
  {
    const ScopedVariable folder(lessons::kJudgeVariable, transcripts.path().string());
    const ScopedVariable verdict(lessons::kVerdictVariable, verdicts.file(name));
    const ScopedVariable seed(lessons::kSeedVariable, std::to_string(request.seed));
    JobEnd judged = run_program_under_mpiexec(judge.string(), np, {}, settings);
    if (judged.code != 0) {
      // The judge runs the library's code on what the exercise wrote: when it does not end
      // well, the run counts as the exercise's failure (an exercise may have left something
      // that ended it), and a grade of many goes on to the next.
      judged.last_message =
          fmt::format("the judge ({}) did not end normally: {}{}", judge.filename().string(),
                      judged.reason(request.timeout_seconds),
                      judged.last_message.empty() ? "" : "; " + judged.last_message);
      if (judged.code == kExitUsage) judged.code = kExitInternal;
      at.end = judged;
      return at;
    }
  }
  at.result = verdicts.read(name);
  return at;
}

}  // namespace

std::optional<RunVerdict> LessonWorldRun::verdict() const {
  if (end.code != 0 || result.state != JobResult::State::accepted) return std::nullopt;
  return parse_run_verdict(result.document);
}

bool LessonWorldRun::job_failed() const {
  return end.code != 0 && end.code != kExitUsage;
}

std::string LessonWorldRun::how_it_failed(int timeout_seconds) const {
  const std::string where = fmt::format("at {} rank{}", np, np == 1 ? "" : "s");
  if (end.exit_code() == kJobNotRun)
    return fmt::format("{} {}", end.reason(timeout_seconds), where);
  // mpiexec ends with 128 + N when a rank died of signal N.
  const int signal_number = end.code - 128;
  if (end.code != kTimedOut && signal_number > 0 && signal_number < NSIG) {
    const char* abbreviation = sigabbrev_np(signal_number);
    return fmt::format("crashed with SIG{} ({}) {}", abbreviation == nullptr ? "?" : abbreviation,
                       strsignal(signal_number), where);
  }
  const std::string reason = end.reason(timeout_seconds);
  return fmt::format("{} {}", reason.starts_with("exited ") ? "crashed (" + reason + ")" : reason,
                     where);
}

const LessonWorldRun* LessonRun::failed_job() const {
  return !runs.empty() && runs.back().job_failed() ? &runs.back() : nullptr;
}

LessonRun check_lesson(const LessonInfo& l, const CheckRequest& request) {
  const std::string judge_target = l.target() + "_solution";
  const std::string target = request.solution ? judge_target : l.target();
  LessonRun run;
  run.seed = request.seed;
  run.source = request.solution           ? l.dir / "solution.cpp"
               : request.exercise.empty() ? l.dir / "exercise.cpp"
                                          : std::filesystem::absolute(request.exercise);
  const auto checker = l.dir / "check.cpp";
  run.source_sha256 = sha256_of_file(run.source);
  run.check_sha256 = sha256_of_file(checker);
  // The judge first: the library's solution with the same check.
  const auto solution = l.dir / "solution.cpp";
  const auto judge_record = kBinaryDir / "lessons" / (judge_target + ".sources.sha256");
  renew_if_changed({{solution, sha256_of_file(solution)}, {checker, run.check_sha256}},
                   judge_record);
  if (std::optional<std::string> messages = build_target(judge_target)) {
    throw InternalError(fmt::format("the library's solution of lesson {:02d} does not compile:\n{}",
                                    l.number, *messages));
  }
  const auto record = kBinaryDir / "lessons" / (target + ".sources.sha256");
  std::optional<ExerciseLink> link;  // held until the check ends
  if (!request.solution) {
    link.emplace(l, run.source);
    renew_if_changed({{run.source, run.source_sha256}}, record);  // the check: with the judge's
    if (std::optional<std::string> messages = build_target(target)) {
      run.outcome = LessonRun::Outcome::does_not_compile;
      run.compiler_output = with_source_path(std::move(*messages), l, run.source);
      return run;
    }
  }
  run.program = kBinaryDir / "lessons" / target;
  const auto judge = kBinaryDir / "lessons" / judge_target;
  std::vector<WorldVerdict> verdicts;
  for (int np : request.world_sizes.empty() ? l.world_sizes : request.world_sizes) {
    run.runs.push_back(run_at(l, request.solution, run.program, judge, np, request));
    if (run.runs.back().end.code == kExitUsage) {
      run.outcome = LessonRun::Outcome::refused;
      return run;
    }
    verdicts.push_back({np, run.runs.back().verdict()});
    if (run.runs.back().job_failed()) break;
  }
  run.outcome = LessonRun::Outcome::checked;
  run.summary = summarize(verdicts);
  for (PartSummary& part : run.summary.parts) {
    part.todo = with_source_path(todo_from_build_folder(part.todo), l, run.source);
  }
  return run;
}

}  // namespace tplab::app
