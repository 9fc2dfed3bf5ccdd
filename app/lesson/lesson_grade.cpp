#include "lesson_grade.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "lesson_check.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

const std::filesystem::path kSourceDir = TPLAB_SOURCE_DIR;

/// The points of one lesson, shared by the tensors its check compares.
constexpr double kLessonPoints = 1.0;

/// The compiler's messages kept in a grade: enough for the first errors.
constexpr std::size_t kCompilerOutputKept = 4000;

/// One tensor of a lesson's check, over every world size.
struct TensorGrade {
  std::string name;   ///< as the check names it: "Y_r"
  std::string part;   ///< the part of the lesson that compares it: "forward"
  std::string title;  ///< the check's title at the first world size: "column split, exact ..."
  bool pass = true;   ///< it agreed with the reference at every world size
  std::vector<std::string> lines;  ///< one per world size
};

/// One lesson's grade.
struct LessonGrade {
  const LessonInfo* lesson = nullptr;
  std::string source, sha256;  ///< the source checked (relative to the checkout) and its digest
  std::string check_sha256;    ///< the digest of the lesson's checker, check.cpp
  std::string verdict;         ///< "passed", "wrong", "not started", "does not compile", ...
  std::string output;          ///< what the check found, for the learner and the instructor
  std::vector<TensorGrade> tensors;

  double score() const {
    if (tensors.empty()) return 0;
    std::size_t passed = 0;
    for (const TensorGrade& t : tensors) passed += t.pass ? 1 : 0;
    return kLessonPoints * static_cast<double>(passed) / static_cast<double>(tensors.size());
  }
  double tensor_points() const {
    return tensors.empty() ? 0 : kLessonPoints / static_cast<double>(tensors.size());
  }
  std::string digest_line() const {
    return fmt::format("checked {} (sha256 {}) with check.cpp (sha256 {})", source, sha256,
                       check_sha256);
  }
};

std::string number_text(const nlohmann::json& value, std::string_view format) {
  return value.is_number() ? fmt::format(fmt::runtime(format), value.get<double>())
                           : std::string("-");
}

/// "np=2: ok, max_abs 1.11e-16, 0% of the tolerance used", or why the tensor failed there.
std::string describe_tensor(int np, const nlohmann::json& t) {
  const std::string used = t["tolerance_used"].is_number()
                               ? fmt::format("{:.0f}%", t["tolerance_used"].get<double>() * 100)
                               : std::string("-");
  if (t.value("pass", false)) {
    return fmt::format("np={}: ok, max_abs {}, {} of the tolerance used", np,
                       number_text(t["max_abs"], "{:.3g}"), used);
  }
  // The judge's words where it had nothing of the exercise's to measure: not produced (the
  // part ended early, the job exited), or produced in the wrong extents.
  if (!t.value("produced", true) || !t["max_abs"].is_number()) {
    return fmt::format("np={}: FAIL, {}", np,
                       t["note"].is_string() ? t["note"].get<std::string>() : "not produced");
  }
  if (!t.value("replicas_identical", true)) {
    return fmt::format("np={}: FAIL, ranks that should hold the same values differ ({})", np,
                       t.value("replicas_differ", ""));
  }
  if (t.value("nonfinite", 0) > 0) {
    return fmt::format("np={}: FAIL, {} NaN or Inf values", np, t.value("nonfinite", 0));
  }
  return fmt::format(
      "np={}: FAIL, max_abs {}, {} of the tolerance used; worst at index {}: got {}, "
      "reference {}",
      np, number_text(t["max_abs"], "{:.3g}"), used, t.value("worst_index", -1),
      number_text(t["worst_got"], "{:.10g}"), number_text(t["worst_ref"], "{:.10g}"));
}

/// Why a world size's run left no findings: "np=4: crashed (exit 3); last message: ...".
std::string describe_missing(const LessonWorldRun& at, int timeout_seconds) {
  std::string text =
      fmt::format("np={}: no findings: it {}", at.np, at.end.reason(timeout_seconds));
  if (at.result.state == JobResult::State::rejected) {
    text += fmt::format("; what it left is not its own ({})", at.result.why_rejected);
  }
  if (!at.end.last_message.empty()) text += "; last message: " + at.end.last_message;
  return text;
}

/// The tensors of every report of every world size, each judged over all world sizes.
std::vector<TensorGrade> grade_tensors(const LessonRun& run, int timeout_seconds) {
  // A tensor is the same from one world size to the next when it has the same name in the
  // report of the same position (titles name the grid, which changes with the world size).
  using Key = std::pair<std::size_t, std::string>;
  std::vector<Key> order;
  std::map<Key, TensorGrade> grades;
  for (const LessonWorldRun& at : run.runs) {
    if (at.result.state != JobResult::State::accepted) continue;
    const nlohmann::json& reports = at.result.document["reports"];
    for (std::size_t i = 0; i < reports.size(); ++i) {
      for (const auto& t : report_tensors(reports[i])) {
        const Key key{i, t["name"].get<std::string>()};
        if (grades.contains(key)) continue;
        order.push_back(key);
        grades[key] = {key.second,
                       reports[i].value("part", "forward"),
                       reports[i].value("title", ""),
                       true,
                       {}};
      }
    }
  }
  for (const Key& key : order) {
    TensorGrade& grade = grades[key];
    for (const LessonWorldRun& at : run.runs) {
      const nlohmann::json* found = nullptr;
      if (at.result.state == JobResult::State::accepted) {
        const nlohmann::json& reports = at.result.document["reports"];
        if (key.first < reports.size()) {
          for (const auto& t : report_tensors(reports[key.first])) {
            if (t["name"] == key.second) found = &t;
          }
        }
      }
      if (found != nullptr) {
        grade.lines.push_back(describe_tensor(at.np, *found));
        grade.pass = grade.pass && found->value("pass", false);
      } else if (at.result.state == JobResult::State::accepted) {
        // The check compares some tensors only at some world sizes (a count of collectives
        // where there are some): a complete run without it has nothing to say about it.
        grade.lines.push_back(fmt::format("np={}: not compared at this world size", at.np));
      } else {
        grade.lines.push_back(describe_missing(at, timeout_seconds));
        grade.pass = false;
      }
    }
  }
  std::vector<TensorGrade> ordered;
  for (const Key& key : order) ordered.push_back(std::move(grades[key]));
  return ordered;
}

/// A TODO's place as the compiler saw it, shown relative to the checkout.
std::string todo_in_checkout(std::string todo) {
  if (todo.starts_with(kSourceDir.string() + "/")) todo.erase(0, kSourceDir.string().size() + 1);
  return todo;
}

/// "not started: its part, backward, still has a TODO (lessons/03-1d-mlp/exercise.cpp:42)".
std::string not_started_line(const PartSummary& part) {
  return fmt::format("not started: its part, {}, still has a TODO{}", part.name,
                     part.todo.empty() ? std::string() : " (" + todo_in_checkout(part.todo) + ")");
}

/// A part not started scores 0 for each of its tensors. A TODO stops a part before it compares
/// anything, so the tensors of such a part that no run reported are named as the library's
/// solution reports them.
void fail_parts_not_started(const LessonInfo& l, const LessonRun& run,
                            std::vector<TensorGrade>& tensors, int timeout_seconds) {
  std::vector<const PartSummary*> unreported;
  for (const PartSummary& part : run.summary.parts) {
    if (part.verdict() != "not_started") continue;
    const std::string line = not_started_line(part);
    bool reported = false;
    for (TensorGrade& t : tensors) {
      if (t.part != part.name) continue;
      reported = true;
      t.pass = false;
      t.lines.insert(t.lines.begin(), line);
    }
    if (!reported) unreported.push_back(&part);
  }
  if (unreported.empty()) return;
  fmt::print("\n(the library's solution, run to name the tensors of the parts not started)\n");
  CheckRequest request;
  request.solution = true;
  request.timeout_seconds = timeout_seconds;
  const LessonRun reference = check_lesson(l, request);
  for (TensorGrade& t : grade_tensors(reference, timeout_seconds)) {
    for (const PartSummary* part : unreported) {
      if (t.part != part->name) continue;
      t.pass = false;
      t.lines = {not_started_line(*part)};
      tensors.push_back(std::move(t));
    }
  }
}

/// The grade of a check whose runs wrote verdicts: each tensor over every world size.
void grade_checked(LessonGrade& g, const LessonInfo& l, const LessonRun& run, int timeout_seconds) {
  g.tensors = grade_tensors(run, timeout_seconds);
  fail_parts_not_started(l, run, g.tensors, timeout_seconds);
  std::vector<std::string> lines;
  std::vector<int> sizes;
  for (const LessonWorldRun& at : run.runs) {
    sizes.push_back(at.np);
    if (at.result.state != JobResult::State::accepted) {
      lines.push_back(describe_missing(at, timeout_seconds));
    }
  }
  for (const PartSummary& part : run.summary.parts) lines.push_back(describe_part(part, l.dir));
  std::size_t passed = 0;
  for (const TensorGrade& t : g.tensors) passed += t.pass ? 1 : 0;
  g.output = fmt::format("{}: {} of {} tensors agree with the reference at {} ranks\n{}", g.verdict,
                         passed, g.tensors.size(), fmt::join(sizes, ", "), fmt::join(lines, "\n"));
}

LessonGrade grade_lesson(const LessonInfo& l, bool solution, int timeout_seconds,
                         std::uint64_t seed, const std::filesystem::path& submission) {
  LessonGrade g;
  g.lesson = &l;
  CheckRequest request;
  request.solution = solution;
  request.timeout_seconds = timeout_seconds;
  request.seed = seed;
  if (!submission.empty()) {
    request.exercise = submission / l.dir.filename() / "exercise.cpp";
    if (!std::filesystem::is_regular_file(request.exercise)) {
      g.source = request.exercise.string();
      g.verdict = "not submitted";
      g.output = fmt::format("not submitted: there is no {}", request.exercise.string());
      return g;
    }
  }
  const LessonRun run = check_lesson(l, request);
  g.source = run.source.string().starts_with(kSourceDir.string() + "/")
                 ? std::filesystem::relative(run.source, kSourceDir).string()
                 : run.source.string();
  g.sha256 = run.source_sha256;
  g.check_sha256 = run.check_sha256;
  if (run.outcome == LessonRun::Outcome::does_not_compile) {
    g.verdict = "does not compile";
    std::string messages = run.compiler_output.substr(0, kCompilerOutputKept);
    if (messages.size() < run.compiler_output.size()) messages += "\n...";
    g.output = "does not compile; the compiler says:\n" + messages;
  } else if (run.outcome == LessonRun::Outcome::refused) {
    const LessonWorldRun& at = run.runs.back();
    g.verdict = "refused";
    g.output =
        fmt::format("np={}: the check refused it ({}){}", at.np, at.end.reason(timeout_seconds),
                    at.end.last_message.empty() ? "" : ": " + at.end.last_message);
  } else if (run.summary.state == LessonState::not_started) {
    const std::string todo =
        run.summary.parts.empty() ? std::string() : todo_in_checkout(run.summary.parts[0].todo);
    g.verdict = "not started";
    g.output = fmt::format("not started: the exercise still has a TODO{}",
                           todo.empty() ? "" : " (the first one met at " + todo + ")");
  } else {
    g.verdict = state_words(run.summary.state);
    grade_checked(g, l, run, timeout_seconds);
  }
  return g;
}

nlohmann::json extra_data(const LessonGrade& g) {
  return {{"lesson", g.lesson->number},
          {"source", g.source},
          {"sha256", g.sha256},
          {"check_sha256", g.check_sha256}};
}

/// The grades in Gradescope's results.json form: one test per tensor (a lesson with no tensor
/// to judge is one test of its own), numbered "NN.k" so that a lesson's tests stay together.
nlohmann::json results_json(const std::vector<LessonGrade>& grades, bool solution,
                            const std::string& summary) {
  nlohmann::json tests = nlohmann::json::array();
  nlohmann::json lessons = nlohmann::json::array();
  double total = 0;
  for (const LessonGrade& g : grades) {
    const LessonInfo& l = *g.lesson;
    total += g.score();
    if (g.tensors.empty()) {
      tests.push_back({{"name", fmt::format("lesson {:02d}: {}", l.number, l.title)},
                       {"number", fmt::format("{:02d}", l.number)},
                       {"score", 0.0},
                       {"max_score", kLessonPoints},
                       {"output", g.output + "\n" + g.digest_line()},
                       {"extra_data", extra_data(g)}});
    }
    for (std::size_t k = 0; k < g.tensors.size(); ++k) {
      const TensorGrade& t = g.tensors[k];
      tests.push_back({{"name", fmt::format("lesson {:02d}, {}: {}", l.number, t.name, t.title)},
                       {"number", fmt::format("{:02d}.{}", l.number, k + 1)},
                       {"score", t.pass ? g.tensor_points() : 0.0},
                       {"max_score", g.tensor_points()},
                       {"output", fmt::format("{}\n{}", fmt::join(t.lines, "\n"), g.digest_line())},
                       {"extra_data", extra_data(g)}});
    }
    nlohmann::json lesson = extra_data(g);
    lesson.update({{"title", l.title},
                   {"verdict", g.verdict},
                   {"score", g.score()},
                   {"max_score", kLessonPoints},
                   {"output", g.output}});
    lessons.push_back(lesson);
  }
  return {{"score", total},
          {"output", summary},
          {"tests", tests},
          {"extra_data",
           {{"graded", solution ? "solutions" : "exercises"},
            {"max_score", kLessonPoints * static_cast<double>(grades.size())},
            {"lessons", lessons}}}};
}

}  // namespace

int grade_lessons(const std::vector<LessonInfo>& lessons, bool solution,
                  const std::optional<std::string>& json, int timeout_seconds, std::uint64_t seed,
                  const std::filesystem::path& submission) {
  std::vector<LessonGrade> grades;
  for (const LessonInfo& l : lessons) {
    grades.push_back(grade_lesson(l, solution, timeout_seconds, seed, submission));
  }
  double total = 0;
  std::string summary = fmt::format(
      "tplab lesson grade: every lesson's check run on the {} as they stand; each lesson is "
      "worth {:g} point, shared by the tensors its check compares\n"
      "  {:>2}  {:>5}  {:<17} {}\n",
      solution ? "library's solutions" : "exercises", kLessonPoints, "#", "score", "verdict",
      "source checked (sha256)");
  for (const LessonGrade& g : grades) {
    total += g.score();
    summary += fmt::format("  {:02d}  {:5.2f}  {:<17} {} ({})\n", g.lesson->number, g.score(),
                           g.verdict, g.source, g.sha256.substr(0, 16));
  }
  summary += fmt::format("total: {:.2f} of {:g} points\n", total,
                         kLessonPoints * static_cast<double>(grades.size()));
  fmt::print("\n{:=<78}\n{}", "", summary);
  if (json) {
    write_file_safely(*json, results_json(grades, solution, summary).dump(2) + "\n", "--json");
    fmt::print("wrote the grades to {}\n", *json);
  }
  return 0;
}

}  // namespace tplab::app
