// "tplab lesson": list, show, check, hint, reset and grade the lessons of lessons/, and say
// which comes next.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>

#include "commands.hpp"
#include "core/error.hpp"
#include "launch_options.hpp"
#include "launch_preflight.hpp"
#include "lesson_catalog.hpp"
#include "lesson_check.hpp"
#include "lesson_grade.hpp"
#include "lesson_paths.hpp"
#include "lesson_progress.hpp"
#include "lesson_submissions.hpp"
#include "mpi_launch.hpp"
#include "output_lock.hpp"
#include "output_options.hpp"
#include "problem_options.hpp"
#include "safe_output.hpp"
#include "trace_option.hpp"

namespace tplab::app {
namespace {

struct LessonOptions {
  int number = -1;
  std::vector<int> numbers;  // lesson grade's, all when empty
  bool solution = false;
  bool all = false;
  bool readme = false;
  bool answers = false;
  std::vector<int> np;
  std::optional<std::string> json;
  int timeout = 120;
  bool allow_many_ranks = false;
  std::optional<std::uint64_t> seed;  // check: 0 unless given; grade: a fresh one unless given
  std::optional<std::string> submissions, out;  // grade a class: one folder per student
  std::optional<std::string> trace;             // check: the exercise's timelines
};

std::vector<LessonInfo> lessons() {
  return load_lessons(kSourceDir / "lessons");
}

/// The progress file; the first time, it takes over an older version's from the build folder.
ProgressFile progress_file() {
  const std::filesystem::path path = progress_path(kSourceDir);
  const std::filesystem::path old_path = kBinaryDir / "lessons-progress.json";
  if (std::getenv(kLessonProgressVariable) == nullptr && adopt_old_progress(old_path, path)) {
    fmt::print("(moved your lesson progress from {} to {}, where it outlives the build folder)\n",
               old_path.string(), path.string());
  }
  return ProgressFile(path);
}

/// The first lesson that never passed, from `from` on and then from the start; null when every
/// lesson has passed.
const LessonInfo* first_not_passed(const std::vector<LessonInfo>& all, const ProgressFile& progress,
                                   int from = 0) {
  const LessonInfo* earlier = nullptr;
  for (const LessonInfo& l : all) {
    if (progress.lesson(l.number).passed_before) continue;
    if (l.number >= from) return &l;
    if (earlier == nullptr) earlier = &l;
  }
  return earlier;
}

/// "next: ./tplab lesson show 4", or what to do with a lesson begun and not passed yet.
std::string next_step(const LessonInfo* next, const ProgressFile& progress) {
  if (next == nullptr) return "every lesson has passed";
  const LessonProgress p = progress.lesson(next->number);
  if (!p.checked) return fmt::format("next: ./tplab lesson show {}", next->number);
  return fmt::format(
      "next: lesson {:02d}, {} at its last check: ./tplab lesson check {} (stuck? ./tplab lesson "
      "hint {})",
      next->number, p.words(), next->number, next->number);
}

// ---- list, next, show, hint, reset -------------------------------------------------------

int list() {
  const std::vector<LessonInfo> all = lessons();
  const ProgressFile progress = progress_file();
  fmt::print("  {:>2}  {:<68} {}\n", "#", "title", "progress");
  int passed = 0;
  for (const LessonInfo& l : all) {
    const LessonProgress p = progress.lesson(l.number);
    passed += p.passed_before ? 1 : 0;
    fmt::print("  {:02d}  {:<68} {}\n", l.number, l.title, p.words());
  }
  fmt::print("\n{} of {} passed; {}\n", passed, all.size(),
             next_step(first_not_passed(all, progress), progress));
  fmt::print("(./tplab lesson next shows it; check your work with ./tplab lesson check N)\n");
  return 0;
}

/// The goal, the files and the commands of lesson `l`.
void print_lesson(const LessonInfo& l) {
  fmt::print("lesson {:02d}: {}\n\n{}\n\n", l.number, l.title, l.goal);
  fmt::print("  read:     {}   (./tplab lesson show {} --readme)\n", (l.dir / "README.md").string(),
             l.number);
  fmt::print("  edit:     {}{}\n", (l.dir / "exercise.cpp").string(),
             l.bug_hunt ? "   (it runs as shipped, bugs and all: nothing in it is a TODO)" : "");
  fmt::print("  check:    ./tplab lesson check {}   (runs on {} ranks)\n", l.number,
             fmt::join(l.world_sizes, ", "));
  fmt::print("  stuck:    ./tplab lesson hint {}\n", l.number);
}

int show(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  if (!o.readme && !o.answers) {
    print_lesson(l);
    return 0;
  }
  const std::filesystem::path readme = l.dir / "README.md";
  std::ifstream in(readme);
  if (!in) {
    throw UsageError(
        fmt::format("cannot read {}; ./tplab lesson reset {} does not restore it, "
                    "git checkout -- {} does",
                    readme.string(), l.number, readme.string()));
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::cout << (o.answers ? text : readme_without_answers(text, l.number));
  return 0;
}

int next() {
  const std::vector<LessonInfo> all = lessons();
  const ProgressFile progress = progress_file();
  const LessonInfo* l = first_not_passed(all, progress);
  if (l == nullptr) {
    fmt::print("every lesson has passed ({} of {}); ./tplab lesson list shows them\n", all.size(),
               all.size());
    return 0;
  }
  print_lesson(*l);
  return 0;
}

/// "" or " (for Y, d_W1)".
std::string hint_subject(const LessonHint& h) {
  return h.tensors.empty() ? std::string() : fmt::format(" (for {})", fmt::join(h.tensors, ", "));
}

int hint(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  ProgressFile progress = progress_file();
  const LessonProgress p = progress.lesson(l.number);
  const std::vector<const LessonHint*> order = hints_in_order(l, p.first_failed);
  const int total = static_cast<int>(order.size());
  if (total == 0) {
    fmt::print("lesson {:02d} has no hints; its README explains each step\n", l.number);
    return 0;
  }
  const int shown = o.all ? total : std::min(p.hints_shown + 1, total);
  if (!p.first_failed.empty() && order.front()->about(p.first_failed)) {
    fmt::print(
        "(your last check failed first at {}: the hints about it come first, then the general "
        "ones)\n",
        p.first_failed);
  } else if (!p.first_failed.empty() && order.front()->tensors.empty()) {
    fmt::print(
        "(your last check failed first at {}: no hint is about it; the general ones come "
        "first)\n",
        p.first_failed);
  }
  for (int i = 0; i < shown; ++i) {
    const LessonHint& h = *order[static_cast<std::size_t>(i)];
    fmt::print("hint {}/{}{}: {}\n", i + 1, total, hint_subject(h), h.text);
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

/// Prints the compiler's messages, indented.
void print_compiler_output(const std::string& output) {
  fmt::print("\nthe exercise does not compile; the compiler says:\n\n");
  for (std::string_view rest = output; !rest.empty();) {
    const auto end = rest.find('\n');
    fmt::print("  {}\n", rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
}

/// The last lines of a check: each part's verdict, and each world size that left none.
void print_parts(const LessonInfo& l, const LessonRun& run, int timeout_seconds) {
  fmt::print("\n");
  for (const PartSummary& part : run.summary.parts) {
    fmt::print("{}\n", describe_part(part, l.dir));
  }
  for (const LessonWorldRun& at : run.runs) {
    if (at.verdict()) continue;
    // A job that failed is told in the verdict line, after this.
    fmt::print("{} rank{}: no verdict{}{}\n", at.np, at.np == 1 ? "" : "s",
               at.job_failed() ? "" : ": it " + at.end.reason(timeout_seconds),
               at.end.last_message.empty() ? "" : "; last message: " + at.end.last_message);
  }
}

/// The verdict line of a check that did not pass ("lesson 03: WRONG now (it passed before;
/// ...)"), and its exit code.
int report_not_passed(const LessonInfo& l, const LessonSummary& s, bool passed_before) {
  const std::string exercise = (l.dir / "exercise.cpp").string();
  const std::string why =
      s.state == LessonState::wrong
          ? fmt::format(
                "the tables above show which tensors disagree and where{}",
                s.first_failed.empty()
                    ? std::string()
                    : fmt::format("; the first to fail: {} (./tplab lesson hint {} starts there)",
                                  s.first_failed, l.number))
      : s.state == LessonState::in_progress
          ? fmt::format("fill in the TODO blocks that are left in {}", exercise)
          : fmt::format("fill in the TODO blocks of {}", exercise);
  const std::string state = s.state == LessonState::wrong ? "WRONG" : state_words(s.state);
  if (passed_before) {
    fmt::print("lesson {:02d}: {} now (it passed before; {})\n", l.number, state, why);
  } else {
    fmt::print("lesson {:02d}: {}: {}\n", l.number, state, why);
  }
  return s.state == LessonState::wrong ? kExitFailed : 0;
}

/// The verdict line of a check whose job crashed or timed out at one of `world_sizes` ("lesson
/// 01: WRONG: crashed with SIGSEGV (Segmentation fault) at 2 ranks; ..."), and its exit code: 124
/// for a time-out, 5 for a job that could not run or was ended from outside (JobEnd::exit_code),
/// else 1: the exercise's own crash is its answer being wrong.
int report_failed_job(const LessonInfo& l, const LessonRun& run,
                      const std::vector<int>& world_sizes, int timeout_seconds,
                      bool passed_before) {
  const LessonWorldRun& at = *run.failed_job();
  const bool timed_out = at.end.code == kTimedOut;
  const std::vector<int> not_run(world_sizes.begin() + static_cast<std::ptrdiff_t>(run.runs.size()),
                                 world_sizes.end());
  const std::string stopped = not_run.empty()
                                  ? std::string()
                                  : fmt::format("; {} rank{} not run", fmt::join(not_run, ", "),
                                                not_run == std::vector{1} ? "" : "s");
  const std::string next =
      timed_out ? "a loop that never ends, or a collective that some ranks never reach? "
                  "--timeout gives it longer"
                : fmt::format("to see where: mpiexec -n {} {}", at.np, run.program.string());
  fmt::print("lesson {:02d}: WRONG{}: {}{} ({})\n", l.number,
             passed_before ? " now (it passed before)" : "", at.how_it_failed(timeout_seconds),
             stopped, next);
  if (timed_out) return kTimedOut;
  return at.end.exit_code() == kJobNotRun ? kJobNotRun : kExitFailed;
}

/// Runs the preflight on every world size the check will run.
void preflight_check(const LessonInfo& l, const LessonOptions& o) {
  const std::vector<int> world_sizes = o.np.empty() ? l.world_sizes : o.np;
  LaunchPlan plan;
  plan.tensors = "a lesson's tensors are a few KiB";
  plan.smaller = "fewer ranks";
  for (int np : world_sizes) {
    if (np < 1) throw UsageError(fmt::format("--np {}: a run needs at least one rank", np));
    plan.jobs.push_back({.label = fmt::format("lesson {:02d}", l.number),
                         .np = np,
                         .overrides = {},
                         .bytes_per_rank = 0});
  }
  preflight(plan, o.allow_many_ranks);
}

int check(const LessonOptions& o) {
  const std::vector<LessonInfo> all = lessons();
  const LessonInfo& l = find_lesson(all, o.number);
  preflight_check(l, o);
  std::optional<ProgressFile> progress;
  if (!o.solution) progress.emplace(progress_file());
  const bool passed_before = progress && progress->lesson(l.number).passed_before;
  CheckRequest request;
  request.solution = o.solution;
  request.world_sizes = o.np;
  request.timeout_seconds = o.timeout;
  request.seed = o.seed.value_or(0);
  if (o.trace) {
    const std::vector<int> world_sizes = o.np.empty() ? l.world_sizes : o.np;
    const std::string label = fmt::format("lesson {:02d}", l.number);
    for (int np : world_sizes) {
      request.traces[np] = job_trace_path(*o.trace, label, np, world_sizes.size(), std::nullopt);
      fmt::print("trace of {} np={}: {}\n", label, np, request.traces[np]);
    }
  }
  LessonRun run = check_lesson(l, request);
  if (run.outcome == LessonRun::Outcome::refused) return kExitUsage;  // the program said why
  if (run.outcome == LessonRun::Outcome::does_not_compile) {
    print_compiler_output(run.compiler_output);
    run.summary = {LessonState::wrong, {}, {}, {}};
  } else {
    print_parts(l, run, o.timeout);
  }
  if (progress) progress->record_check(l.number, run.summary);
  if (run.outcome == LessonRun::Outcome::does_not_compile) {
    fmt::print(
        "lesson {:02d}: WRONG{}\n", l.number,
        passed_before ? " now (it passed before; it does not compile)" : " (does not compile)");
    return kExitFailed;
  }
  if (run.failed_job() != nullptr) {
    return report_failed_job(l, run, o.np.empty() ? l.world_sizes : o.np, o.timeout, passed_before);
  }
  if (run.summary.state != LessonState::passed) {
    return report_not_passed(l, run.summary, passed_before);
  }
  fmt::print("lesson {:02d}: PASSED at every world size\n", l.number);
  if (progress) {
    fmt::print("{}\n", next_step(first_not_passed(all, *progress, l.number + 1), *progress));
  }
  return 0;
}

int grade(const LessonOptions& o) {
  if (o.submissions && (o.solution || o.json)) {
    throw UsageError(
        "--submissions grades the students' exercises, each into --out/STUDENT/results.json: "
        "it takes neither --solution nor --json");
  }
  if (o.out && !o.submissions) throw UsageError("--out goes with --submissions DIR");
  std::optional<OutputLock> json_lock;  // held until the grades are written
  if (o.json) {
    require_writable_file(*o.json, "--json");
    json_lock.emplace(*o.json, "--json");
  }
  const std::vector<LessonInfo> all = lessons();
  std::vector<LessonInfo> chosen;
  for (int n : o.numbers) chosen.push_back(find_lesson(all, n));
  // A grade's inputs are drawn afresh each time, so that no answer can be known before it runs;
  // --seed repeats a grade (its seed is in results.json).
  const std::uint64_t seed =
      o.seed ? *o.seed : (std::uint64_t{std::random_device{}()} << 32 | std::random_device{}()) | 1;
  if (o.submissions) {
    const std::filesystem::path folder = std::filesystem::absolute(*o.submissions);
    const std::filesystem::path out =
        o.out ? std::filesystem::path(*o.out)
              : folder.parent_path() / (folder.filename().string() + "-grades");
    return grade_submissions(o.numbers.empty() ? all : chosen, folder, out, o.timeout, seed);
  }
  return grade_lessons(o.numbers.empty() ? all : chosen, o.solution, o.json, o.timeout, seed);
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

/// Adds --solution: `what` the library's own implementation does instead of the exercise.
void add_solution_flag(CLI::App& command, bool& solution, const std::string& what) {
  command.add_flag("--solution", solution,
                   what + " the library's solution instead of the exercise");
}

/// `lesson grade` and its options.
void add_grade_command(CLI::App& cmd, const std::shared_ptr<LessonOptions>& o, int& exit_code) {
  CLI::App* grade_cmd = cmd.add_subcommand(
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
  add_solution_flag(*grade_cmd, o->solution, "grade (what full marks look like)");
  add_json_option(*grade_cmd, o->json,
                  "the grades in Gradescope's results.json form (score, tests)");
  add_timeout_option(*grade_cmd, o->timeout, "a run is ended");
  grade_cmd->add_option("--submissions", o->submissions,
                        "grade a class: DIR holds one folder per student, each laid out as "
                        "lessons/ (STUDENT/01-column-split/exercise.cpp, ...); each is built and "
                        "checked apart");
  add_out_option(*grade_cmd, o->out,
                 "with --submissions: STUDENT/results.json and gradebook.csv (default: "
                 "DIR-grades beside DIR)");
  add_seed_option(*grade_cmd, o->seed,
                  "every check's inputs, to repeat a grade (default: a fresh seed each time, "
                  "written to results.json)");
  grade_cmd->callback([o, &exit_code] { exit_code = grade(*o); });
}

}  // namespace

void add_lesson_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<LessonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lesson", "Graded lessons: list them, read one, check your exercise, get a hint, reset it.");
  cmd->require_subcommand(1);
  // Read as text and converted in base 10: the lessons are numbered 00, 01, ..., and "08" must not
  // be taken for a malformed octal number.
  const auto number = [&o](CLI::App* sub) {
    sub->add_option_function<std::string>(
           "N", [o](const std::string& text) { o->number = lesson_number(text); },
           "the lesson's number (./tplab lesson list)")
        ->required();
  };
  cmd->add_subcommand("list", "every lesson with its progress, and what to do next")
      ->callback([&exit_code] { exit_code = list(); });
  cmd->add_subcommand("next", "the first lesson not passed yet, as lesson show shows it")
      ->callback([&exit_code] { exit_code = next(); });
  CLI::App* show_cmd = cmd->add_subcommand("show", "the lesson's goal and files");
  number(show_cmd);
  show_cmd->add_flag("--readme", o->readme, "print the README, its worked answers hidden");
  show_cmd->add_flag("--answers", o->answers, "print the README with its worked answers");
  show_cmd->callback([o, &exit_code] { exit_code = show(*o); });
  CLI::App* check_cmd = cmd->add_subcommand(
      "check", "build your exercise, run it under mpiexec and compare it with the reference");
  number(check_cmd);
  add_solution_flag(*check_cmd, o->solution, "check");
  add_np_option(*check_cmd, o->np, "the lesson's own");
  add_timeout_option(*check_cmd, o->timeout, "a run is ended");
  add_allow_many_ranks_flag(*check_cmd, o->allow_many_ranks);
  add_trace_option(*check_cmd, o->trace,
                   "the exercise's timelines (operations, collectives, its marked steps), one "
                   "file per world size: FILE's stem, the lesson, np, its extension");
  add_seed_option(*check_cmd, o->seed,
                  "the check's inputs (default: the lesson's own inputs; a grade's seed is in its "
                  "results.json)");
  check_cmd->callback([o, &exit_code] { exit_code = check(*o); });
  CLI::App* hint_cmd = cmd->add_subcommand("hint", "the next hint (--all: every hint)");
  number(hint_cmd);
  hint_cmd->add_flag("--all", o->all, "every hint at once");
  hint_cmd->callback([o, &exit_code] { exit_code = hint(*o); });
  CLI::App* reset_cmd =
      cmd->add_subcommand("reset", "restore the shipped exercise (your changes are lost)");
  number(reset_cmd);
  reset_cmd->callback([o, &exit_code] { exit_code = reset(*o); });
  add_grade_command(*cmd, o, exit_code);
}

}  // namespace tplab::app
