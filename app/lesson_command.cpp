// "tplab lesson": list, show, check, hint, reset and grade the lessons of lessons/.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "core/error.hpp"
#include "launch_preflight.hpp"
#include "lesson_catalog.hpp"
#include "lesson_check.hpp"
#include "lesson_grade.hpp"
#include "mpi_launch.hpp"
#include "option_checks.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

const std::filesystem::path kSourceDir = TPLAB_SOURCE_DIR;
const std::filesystem::path kBinaryDir = TPLAB_BINARY_DIR;

struct LessonOptions {
  int number = -1;
  std::vector<int> numbers;  // lesson grade's, all when empty
  bool solution = false;
  bool all = false;
  bool full = false;
  std::vector<int> np;
  std::optional<std::string> json;
  int timeout = 120;
  bool allow_many_ranks = false;
};

std::vector<LessonInfo> lessons() {
  return load_lessons(kSourceDir / "lessons");
}

ProgressFile progress_file() {
  return ProgressFile(kBinaryDir / "lessons-progress.json");
}

// ---- list, show, hint, reset -------------------------------------------------------------

int list() {
  const ProgressFile progress = progress_file();
  fmt::print("  {:>2}  {:<68} {}\n", "#", "title", "progress");
  for (const LessonInfo& l : lessons()) {
    fmt::print("  {:02d}  {:<68} {}\n", l.number, l.title,
               progress_name(progress.progress(l.number)));
  }
  fmt::print("\nstart with ./tplab lesson show 0; check your work with ./tplab lesson check N\n");
  return 0;
}

int show(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  const auto readme = l.dir / "README.md";
  if (o.full) {
    std::ifstream in(readme);
    std::cout << in.rdbuf();
    return 0;
  }
  fmt::print("lesson {:02d}: {}\n\n{}\n\n", l.number, l.title, l.goal);
  fmt::print("  read:     {}\n", readme.string());
  fmt::print("  edit:     {}\n", (l.dir / "exercise.cpp").string());
  fmt::print("  check:    ./tplab lesson check {}   (runs on {} ranks)\n", l.number,
             fmt::join(l.world_sizes, ", "));
  fmt::print("  stuck:    ./tplab lesson hint {}\n", l.number);
  return 0;
}

int hint(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  ProgressFile progress = progress_file();
  const int total = static_cast<int>(l.hints.size());
  const int shown = o.all ? total : std::min(progress.hints_shown(l.number) + 1, total);
  for (int i = 0; i < shown; ++i) {
    fmt::print("hint {}/{}: {}\n", i + 1, total, l.hints[static_cast<std::size_t>(i)]);
  }
  if (shown < total) {
    fmt::print("\n(./tplab lesson hint {} again for the next one, --all for every one)\n",
               l.number);
  }
  progress.set_hints_shown(l.number, shown);
  return 0;
}

int reset(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  const std::string exercise = fmt::format("lessons/{}/exercise.cpp", l.slug);
  const std::string command =
      fmt::format("git -C '{}' checkout -- '{}'", kSourceDir.string(), exercise);
  if (std::system(command.c_str()) != 0) {
    throw UsageError(fmt::format(
        "could not restore {} from git (is this a git checkout?); the shipped exercise is in "
        "the repository's history",
        exercise));
  }
  progress_file().forget(l.number);
  fmt::print("lesson {:02d}: {} restored as shipped; progress cleared\n", l.number, exercise);
  return 0;
}

// ---- check -------------------------------------------------------------------------------

int check(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  const std::vector<int> world_sizes = o.np.empty() ? l.world_sizes : o.np;
  LaunchRequest request{{}, o.allow_many_ranks, "a lesson's tensors are a few KiB", "fewer ranks"};
  for (int np : world_sizes) {
    if (np < 1) throw UsageError(fmt::format("--np {}: a run needs at least one rank", np));
    request.jobs.push_back({fmt::format("lesson {:02d}", l.number), np, 0.0});
  }
  preflight(request);
  ProgressFile progress = progress_file();
  const auto record = [&](Progress p) {
    if (!o.solution) progress.set_progress(l.number, p);
  };
  const LessonRun run = check_lesson(l, o.solution, o.np, o.timeout);
  switch (run.outcome) {
    case LessonRun::Outcome::does_not_compile:
      fmt::print("\nthe exercise does not compile; the compiler says:\n\n");
      for (std::string_view rest = run.compiler_output; !rest.empty();) {
        const auto end = rest.find('\n');
        fmt::print("  {}\n", rest.substr(0, end));
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
      }
      record(Progress::wrong);
      fmt::print("\nlesson {:02d}: WRONG (does not compile)\n", l.number);
      return kExitFailed;
    case LessonRun::Outcome::refused:
      return kExitUsage;  // the program said why, on every rank
    case LessonRun::Outcome::not_started:
      record(Progress::not_started);
      fmt::print("\nlesson {:02d}: not started: fill in the TODO blocks of {}\n", l.number,
                 (l.dir / "exercise.cpp").string());
      return 0;
    case LessonRun::Outcome::wrong:
      record(Progress::wrong);
      fmt::print("\nlesson {:02d}: WRONG: the tables above show which tensors disagree and where\n",
                 l.number);
      return kExitFailed;
    case LessonRun::Outcome::passed:
      break;
  }
  record(Progress::passed);
  fmt::print("\nlesson {:02d}: PASSED at every world size\n", l.number);
  return 0;
}

int grade(const LessonOptions& o) {
  if (o.json) require_writable_file(*o.json, "--json");
  const std::vector<LessonInfo> all = lessons();
  std::vector<LessonInfo> chosen;
  for (int n : o.numbers) chosen.push_back(find_lesson(all, n));
  return grade_lessons(o.numbers.empty() ? all : chosen, o.solution, o.json, o.timeout);
}

/// The lesson number `text` names in base 10 ("8" or "08"); a usage error otherwise.
int lesson_number(const std::string& text) {
  int n = -1;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, n);
  if (error != std::errc() || stop != end || n < 0) {
    throw CLI::ValidationError(
        "N", fmt::format("'{}' is not a lesson number (./tplab lesson list)", text));
  }
  return n;
}

}  // namespace

void add_lesson_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<LessonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lesson", "Graded lessons: list them, read one, check your exercise, get a hint, reset it.");
  cmd->require_subcommand(1);
  // Read as text and converted in base 10: the lessons are numbered 00 to 12, and "08" must not
  // be taken for a malformed octal number.
  const auto number = [&o](CLI::App* sub) {
    sub->add_option_function<std::string>(
           "N", [o](const std::string& text) { o->number = lesson_number(text); },
           "the lesson's number (./tplab lesson list)")
        ->required();
  };
  cmd->add_subcommand("list", "every lesson with its progress")->callback([&exit_code] {
    exit_code = list();
  });
  CLI::App* show_cmd = cmd->add_subcommand("show", "the lesson's goal and files");
  number(show_cmd);
  show_cmd->add_flag("--readme", o->full, "print the whole README");
  show_cmd->callback([o, &exit_code] { exit_code = show(*o); });
  CLI::App* check_cmd = cmd->add_subcommand(
      "check", "build your exercise, run it under mpiexec and compare it with the reference");
  number(check_cmd);
  check_cmd->add_flag("--solution", o->solution, "check the library's own implementation");
  check_cmd->add_option("--np", o->np, "world sizes (default: the lesson's own)")->delimiter(',');
  check_cmd->add_option("--timeout", o->timeout, "seconds before a run is ended")
      ->check(timeout_check())
      ->capture_default_str();
  add_allow_many_ranks_flag(*check_cmd, o->allow_many_ranks);
  check_cmd->callback([o, &exit_code] { exit_code = check(*o); });
  CLI::App* hint_cmd = cmd->add_subcommand("hint", "the next hint (--all: every hint)");
  number(hint_cmd);
  hint_cmd->add_flag("--all", o->all, "every hint at once");
  hint_cmd->callback([o, &exit_code] { exit_code = hint(*o); });
  CLI::App* reset_cmd =
      cmd->add_subcommand("reset", "restore the shipped exercise (your changes are lost)");
  number(reset_cmd);
  reset_cmd->callback([o, &exit_code] { exit_code = reset(*o); });
  CLI::App* grade_cmd = cmd->add_subcommand(
      "grade",
      "for instructors and autograders: check every lesson's exercise as it stands (as lesson "
      "check does) and score it tensor by tensor, with a SHA-256 of each source checked; the "
      "progress file is never read");
  grade_cmd->add_option_function<std::vector<std::string>>(
      "N",
      [o](const std::vector<std::string>& texts) {
        for (const auto& text : texts) o->numbers.push_back(lesson_number(text));
      },
      "the lessons to grade (default: every lesson)");
  grade_cmd->add_flag("--solution", o->solution,
                      "grade the library's solutions instead (what full marks look like)");
  grade_cmd->add_option("--json", o->json,
                        "write the grades in Gradescope's results.json form (score, tests)");
  grade_cmd->add_option("--timeout", o->timeout, "seconds before a run is ended")
      ->capture_default_str();
  grade_cmd->callback([o, &exit_code] { exit_code = grade(*o); });
}

}  // namespace tplab::app
