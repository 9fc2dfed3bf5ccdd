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

#include "compiler_messages.hpp"
#include "core/error.hpp"
#include "safe_output.hpp"
#include "sha256.hpp"

namespace tplab::app {
namespace {

const std::filesystem::path kBinaryDir = TPLAB_BINARY_DIR;

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

/// Makes the build compile `sources` as they are now. A file copied in with its old time stamp
/// (a submission unpacked into a checkout built before) would look older than the program and
/// not be compiled again; so when the sources' digests differ from those `record` kept at the
/// last build, their time stamps are renewed.
void renew_if_changed(const std::vector<std::filesystem::path>& sources,
                      const std::filesystem::path& record, const std::string& digests) {
  if (read_own_file(record, "the record of the last build") == digests) return;
  for (const auto& source : sources) {
    if (utimensat(AT_FDCWD, source.c_str(), nullptr, 0) != 0) {
      throw UsageError(
          fmt::format("cannot renew the time stamp of {} so that it is compiled "
                      "again ({})",
                      source.string(), std::strerror(errno)));
    }
  }
}

/// A TODO's place, "file:line", with the file made absolute: the compiler may have seen it by a
/// path relative to the build folder (ccache's base folder makes it so).
std::string todo_from_build_folder(const std::string& todo) {
  const std::size_t colon = todo.rfind(':');
  if (todo.empty() || todo.starts_with("/") || colon == std::string::npos) return todo;
  const std::filesystem::path file = (kBinaryDir / todo.substr(0, colon)).lexically_normal();
  return file.string() + todo.substr(colon);
}

/// Runs the lesson's `program` on `np` ranks, its findings going to a file of `folder`.
LessonWorldRun run_at(const LessonInfo& l, bool solution, const std::filesystem::path& program,
                      const JobFolder& folder, int np, int timeout_seconds) {
  fmt::print("\n==== lesson {:02d}{} on {} rank{} ====\n", l.number,
             solution ? " (the library's solution)" : "", np, np == 1 ? "" : "s");
  std::fflush(stdout);
  const std::string name = fmt::format("lesson-np{}.json", np);
  setenv(kLessonVerdictVariable, folder.file(name).c_str(), 1);
  LessonWorldRun at{
      np,
      run_program_under_mpiexec(program.string(), np, {}, LaunchSettings{timeout_seconds, {}}),
      {}};
  unsetenv(kLessonVerdictVariable);
  at.result = folder.read(name);
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

LessonRun check_lesson(const LessonInfo& l, bool solution, const std::vector<int>& world_sizes,
                       int timeout_seconds) {
  const std::string target = solution ? l.target() + "_solution" : l.target();
  LessonRun run;
  run.source = l.dir / (solution ? "solution.cpp" : "exercise.cpp");
  const auto checker = l.dir / "check.cpp";
  run.source_sha256 = sha256_of_file(run.source);
  run.check_sha256 = sha256_of_file(checker);
  const std::string digests = run.source_sha256 + " " + run.check_sha256 + "\n";
  const auto record = kBinaryDir / "lessons" / (target + ".sha256");
  renew_if_changed({run.source, checker}, record, digests);
  if (std::optional<std::string> messages = build_target(target)) {
    run.outcome = LessonRun::Outcome::does_not_compile;
    run.compiler_output = std::move(*messages);
    return run;
  }
  write_file_safely(record, digests, "the record of the last build");
  run.program = kBinaryDir / "lessons" / target;
  const JobFolder folder;
  std::vector<WorldVerdict> verdicts;
  for (int np : world_sizes.empty() ? l.world_sizes : world_sizes) {
    run.runs.push_back(run_at(l, solution, run.program, folder, np, timeout_seconds));
    if (run.runs.back().end.code == kExitUsage) {
      run.outcome = LessonRun::Outcome::refused;
      return run;
    }
    verdicts.push_back({np, run.runs.back().verdict()});
    if (run.runs.back().job_failed()) break;
  }
  run.outcome = LessonRun::Outcome::checked;
  run.summary = summarize(verdicts);
  for (PartSummary& part : run.summary.parts) part.todo = todo_from_build_folder(part.todo);
  return run;
}

}  // namespace tplab::app
