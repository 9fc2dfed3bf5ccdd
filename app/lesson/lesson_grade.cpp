#include "lesson_grade.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "lesson_check.hpp"
#include "lesson_paths.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

/// The compiler's messages kept in a grade: enough for the first errors.
constexpr std::size_t kCompilerOutputKept = 4000;

/// One tensor of a lesson's check: the part that compares it, the report of that part that
/// does (its position among the part's reports, since two reports of one part may both compare
/// "y"), and its name as the check gives it. The same at every world size and in the library's
/// solution, whatever the learner's code did before or after it.
using TensorKey = std::tuple<std::string, std::size_t, std::string>;

/// One tensor of a lesson's check, over every world size: one test, worth one point.
struct TensorGrade {
  TensorKey key;
  std::string title;  ///< its report's title, free of world sizes (size_free_title)
  bool pass = false;  ///< compared, and in agreement with the reference at every world size
  std::vector<std::string> lines;  ///< one per world size, or why none was compared

  const std::string& name() const { return std::get<2>(key); }
};

/// One lesson's grade.
struct LessonGrade {
  const LessonInfo* lesson = nullptr;
  std::string source, sha256;  ///< the source checked (relative to the checkout) and its digest
  std::string check_sha256;    ///< the digest of the lesson's checker, check.cpp
  std::string verdict;         ///< "passed", "wrong", "not started", "does not compile", ...
  std::string output;          ///< what the check found, for the learner and the instructor
  std::vector<TensorGrade> tensors;

  /// One point a tensor; a lesson whose tensors could not be named is one test of 1 point.
  int max_score() const { return tensors.empty() ? 1 : static_cast<int>(tensors.size()); }
  int score() const {
    return static_cast<int>(
        std::count_if(tensors.begin(), tensors.end(), [](const TensorGrade& t) { return t.pass; }));
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

/// "rank 2", "ranks 1, 3".
std::string ranks_text(const nlohmann::json& ranks) {
  std::vector<int> list;
  for (const auto& r : ranks) {
    if (r.is_number_integer()) list.push_back(r.get<int>());
  }
  return fmt::format("rank{} {}", list.size() == 1 ? "" : "s", fmt::join(list, ", "));
}

/// "; wrong on ranks 1, 3; right on ranks 0, 2": whose shards failed, from the verdict's
/// "ranks_wrong" and "ranks_right"; empty when the check did not say, or every rank was right.
std::string rank_split(const nlohmann::json& t) {
  const auto wrong = t.find("ranks_wrong");
  const auto right = t.find("ranks_right");
  if (wrong == t.end() || !wrong->is_array() || wrong->empty()) return {};
  std::string text = "; wrong on " + ranks_text(*wrong);
  if (right != t.end() && right->is_array() && !right->empty()) {
    text += "; right on " + ranks_text(*right);
  }
  return text;
}

/// The element a failed tensor is named by: its place as the check gave it ("where": "Y[3, 5]
/// (block rows 0..5, ...)"), else its global row-major index.
std::string worst_place(const nlohmann::json& t, const char* index_key) {
  if (t.contains("where") && t["where"].is_string()) return t["where"].get<std::string>();
  return fmt::format("index {}", t.value(index_key, -1));
}

/// The array `document` holds under `key`, by reference (what the findings point into must
/// outlive the search); an empty one when it holds none.
const nlohmann::json& array_in(const nlohmann::json& document, const char* key) {
  static const nlohmann::json none = nlohmann::json::array();
  const auto it = document.find(key);
  return it != document.end() && it->is_array() ? *it : none;
}

/// The finding of a verdict file on the tensor `key`: in the report of its part at that
/// position; null when the run did not compare it.
const nlohmann::json* find_tensor(const nlohmann::json& document, const TensorKey& key) {
  const auto& [part, position, name] = key;
  std::size_t seen = 0;
  for (const auto& report : array_in(document, "reports")) {
    if (report.value("part", "forward") != part) continue;
    if (seen++ != position) continue;
    for (const auto& t : report_tensors(report)) {
      if (t.value("name", "") == name) return &t;
    }
  }
  return nullptr;
}

/// The tensors a check compared at any of its world sizes, in the order first met, each with
/// its report's title.
std::vector<TensorGrade> tensors_of(const LessonRun& run) {
  std::vector<TensorGrade> found;
  for (const LessonWorldRun& at : run.runs) {
    if (at.result.state != JobResult::State::accepted) continue;
    std::map<std::string, std::size_t> reports_of_part;
    for (const auto& report : array_in(at.result.document, "reports")) {
      const std::string part = report.value("part", "forward");
      const std::size_t position = reports_of_part[part]++;
      for (const auto& t : report_tensors(report)) {
        const TensorKey key{part, position, t.value("name", "")};
        if (std::any_of(found.begin(), found.end(),
                        [&](const TensorGrade& g) { return g.key == key; })) {
          continue;
        }
        found.push_back({key, size_free_title(report.value("title", "")), false, {}});
      }
    }
  }
  return found;
}

/// Why a world size's run left no findings: "np=4: no findings: it crashed (exit 3); last
/// message: ...".
std::string describe_missing(const LessonWorldRun& at, int timeout_seconds) {
  std::string text =
      fmt::format("np={}: no findings: it {}", at.np, at.end.reason(timeout_seconds));
  if (at.result.state == JobResult::State::rejected) {
    text += fmt::format("; what it left is not its own ({})", at.result.why_rejected);
  }
  if (!at.end.last_message.empty()) text += "; last message: " + at.end.last_message;
  return text;
}

/// A TODO's place as the compiler saw it, shown relative to the checkout.
std::string todo_in_checkout(std::string todo) {
  if (todo.starts_with(kSourceDir.string() + "/")) todo.erase(0, kSourceDir.string().size() + 1);
  return todo;
}

/// The part `name` as the run at one world size wrote it; null when it did not run it.
const nlohmann::json* part_of(const nlohmann::json& document, const std::string& name) {
  for (const auto& part : array_in(document, "parts")) {
    if (part.value("name", "") == name) return &part;
  }
  return nullptr;
}

/// Why a run that wrote its findings did not compare the tensor `key`, and whether that fails
/// it: its part met a TODO (fails; `summary` has the TODO's place in the checkout), ended on an
/// error before it (fails), or the check compares it only at other world sizes (does not).
std::pair<std::string, bool> why_not_compared(const LessonWorldRun& at, const TensorKey& key,
                                              const LessonSummary& summary) {
  const std::string& part_name = std::get<0>(key);
  const nlohmann::json* part = part_of(at.result.document, part_name);
  const auto text = [&](const char* field) {
    if (part == nullptr || !part->contains(field) || !(*part)[field].is_string())
      return std::string();
    return (*part)[field].get<std::string>();
  };
  const std::string verdict = text("verdict");
  if (verdict == "not_started") {
    const auto summed = std::find_if(summary.parts.begin(), summary.parts.end(),
                                     [&](const PartSummary& p) { return p.name == part_name; });
    const std::string todo =
        summed == summary.parts.end() ? std::string() : todo_in_checkout(summed->todo);
    return {fmt::format("np={}: not started: its part, {}, {}", at.np, part_name,
                        todo.empty() ? text("message") : "still has a TODO (" + todo + ")"),
            true};
  }
  // A wrong part that ran to its end (a tensor disagreed, no error stopped it) compared all it
  // compares at this world size: a count of collectives compared only where there are some.
  if (verdict == "wrong" && !text("message").empty()) {
    return {fmt::format("np={}: FAIL, not compared: its part, {}, ended before it ({})", at.np,
                        part_name, text("message")),
            true};
  }
  return {fmt::format("np={}: not compared at this world size", at.np), false};
}

/// Scores `t` on what `run` found at each world size of the lesson: it passes when it was
/// compared, agreed with the reference wherever it was, and every world size ran to the end.
void score_tensor(TensorGrade& t, const LessonInfo& l, const LessonRun& run, int timeout_seconds) {
  bool compared = false, failed = false;
  for (const LessonWorldRun& at : run.runs) {
    const nlohmann::json* found = at.result.state == JobResult::State::accepted
                                      ? find_tensor(at.result.document, t.key)
                                      : nullptr;
    if (found != nullptr) {
      t.lines.push_back(describe_tensor(at.np, *found));
      compared = true;
      failed = failed || !found->value("pass", false);
    } else if (at.result.state == JobResult::State::accepted) {
      auto [line, fails] = why_not_compared(at, t.key, run.summary);
      t.lines.push_back(std::move(line));
      failed = failed || fails;
    } else {
      t.lines.push_back(describe_missing(at, timeout_seconds));
      failed = true;
    }
  }
  for (std::size_t i = run.runs.size(); i < l.world_sizes.size(); ++i) {
    // the check stops at the first job that fails: the larger ones would end alike
    t.lines.push_back(fmt::format("np={}: not run, after the job that failed", l.world_sizes[i]));
    failed = true;
  }
  t.pass = compared && !failed;
}

/// The tests of lesson `l` as the library's solution names them. They are the same for every
/// submission, so the solution's check runs once per lesson in a grade, however many students
/// of a class (--submissions) did not pass it.
const std::vector<TensorGrade>& solution_tests(const LessonInfo& l, int timeout_seconds) {
  static std::map<int, std::vector<TensorGrade>> named;  // by lesson number
  if (const auto found = named.find(l.number); found != named.end()) return found->second;
  fmt::print("\n(the library's solution, run to name every test of lesson {:02d})\n", l.number);
  CheckRequest request;
  request.solution = true;
  request.timeout_seconds = timeout_seconds;
  return named.emplace(l.number, tensors_of(check_lesson(l, request))).first->second;
}

/// The tests of lesson `l`: one per tensor its check compares, the same whatever state the
/// exercise is in. A check whose every part passed met every tensor, and names them itself;
/// for any other (a part not started, one that ended on an error before its last report, a job
/// that failed, an exercise that does not compile or was refused) the library's solution is run
/// to name them, and the tensors the exercise's check never reached are named as the solution
/// reports them.
std::vector<TensorGrade> lesson_tests(const LessonInfo& l, const LessonRun& run, bool solution,
                                      int timeout_seconds) {
  const bool complete =
      run.outcome == LessonRun::Outcome::checked && run.summary.state == LessonState::passed;
  std::vector<TensorGrade> tests;
  if (!complete && !solution) tests = solution_tests(l, timeout_seconds);
  for (TensorGrade& t : tensors_of(run)) {  // a tensor the solution did not report, if any
    if (std::none_of(tests.begin(), tests.end(),
                     [&](const TensorGrade& s) { return s.key == t.key; })) {
      tests.push_back(std::move(t));
    }
  }
  return tests;
}

/// "does not compile: exercise.cpp:12:5: error: ..." : the first error, for each test of a
/// lesson that does not compile (the lesson's output has every message).
std::string first_error(const std::string& messages) {
  std::istringstream lines(messages);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("error:") != std::string::npos) return line;
  }
  return messages.substr(0, messages.find('\n'));
}

/// The grade of a lesson a submission lacks: every one of its tests at 0.
LessonGrade not_submitted(const LessonInfo& l, const std::filesystem::path& exercise,
                          int timeout_seconds) {
  LessonGrade g;
  g.lesson = &l;
  g.source = exercise.string();
  g.verdict = "not submitted";
  g.output = fmt::format("not submitted: there is no {}", exercise.string());
  LessonRun none;  // nothing ran: the solution names the tests
  none.outcome = LessonRun::Outcome::does_not_compile;
  g.tensors = lesson_tests(l, none, false, timeout_seconds);
  for (TensorGrade& t : g.tensors) t.lines = {g.output};
  return g;
}

/// The output of a check that ran: how many tensors agree, and each part's verdict.
std::string checked_output(const LessonGrade& g, const LessonInfo& l, const LessonRun& run,
                           int timeout_seconds) {
  std::vector<std::string> lines;
  std::vector<int> sizes;
  for (const LessonWorldRun& at : run.runs) {
    sizes.push_back(at.np);
    if (at.result.state != JobResult::State::accepted) {
      lines.push_back(describe_missing(at, timeout_seconds));
    }
  }
  for (const PartSummary& part : run.summary.parts) lines.push_back(describe_part(part, l.dir));
  return fmt::format("{}: {} of {} tensors agree with the reference at {} ranks\n{}", g.verdict,
                     g.score(), g.tensors.size(), fmt::join(sizes, ", "), fmt::join(lines, "\n"));
}

LessonGrade grade_lesson(const LessonInfo& l, bool solution, int timeout_seconds,
                         std::uint64_t seed, const std::filesystem::path& submission) {
  CheckRequest request;
  request.solution = solution;
  request.timeout_seconds = timeout_seconds;
  request.seed = seed;
  if (!submission.empty()) {
    request.exercise = submission / l.dir.filename() / "exercise.cpp";
    if (!std::filesystem::is_regular_file(request.exercise)) {
      return not_submitted(l, request.exercise, timeout_seconds);
    }
  }
  LessonGrade g;
  g.lesson = &l;
  const LessonRun run = check_lesson(l, request);
  g.source = run.source.string().starts_with(kSourceDir.string() + "/")
                 ? std::filesystem::relative(run.source, kSourceDir).string()
                 : run.source.string();
  g.sha256 = run.source_sha256;
  g.check_sha256 = run.check_sha256;
  g.tensors = lesson_tests(l, run, solution, timeout_seconds);
  if (run.outcome == LessonRun::Outcome::does_not_compile) {
    g.verdict = "does not compile";
    std::string messages = run.compiler_output.substr(0, kCompilerOutputKept);
    if (messages.size() < run.compiler_output.size()) messages += "\n...";
    g.output = "does not compile; the compiler says:\n" + messages;
    for (TensorGrade& t : g.tensors) {
      t.lines = {"does not compile: " + first_error(run.compiler_output)};
    }
    return g;
  }
  if (run.outcome == LessonRun::Outcome::refused) {
    const LessonWorldRun& at = run.runs.back();
    g.verdict = "refused";
    g.output =
        fmt::format("np={}: the check refused it ({}){}", at.np, at.end.reason(timeout_seconds),
                    at.end.last_message.empty() ? "" : ": " + at.end.last_message);
    for (TensorGrade& t : g.tensors) t.lines = {g.output};
    return g;
  }
  for (TensorGrade& t : g.tensors) score_tensor(t, l, run, timeout_seconds);
  if (run.summary.state == LessonState::not_started) {
    const std::string todo =
        run.summary.parts.empty() ? std::string() : todo_in_checkout(run.summary.parts[0].todo);
    g.verdict = "not started";
    g.output = fmt::format("not started: the exercise still has a TODO{}",
                           todo.empty() ? "" : " (the first one met at " + todo + ")");
    return g;
  }
  g.verdict = state_words(run.summary.state);
  g.output = checked_output(g, l, run, timeout_seconds);
  return g;
}

nlohmann::json extra_data(const LessonGrade& g) {
  return {{"lesson", g.lesson->number},
          {"source", g.source},
          {"sha256", g.sha256},
          {"check_sha256", g.check_sha256}};
}

/// The grades in Gradescope's results.json form: one test per tensor, worth one point (a lesson
/// whose tensors could not be named is one test of its own), numbered "NN.k" so that a
/// lesson's tests stay together. Every score is a whole number of points, so the tests add up
/// to the lesson's score, and the lessons to the total, exactly.
nlohmann::json results_json(const std::vector<LessonGrade>& grades, bool solution,
                            const std::string& summary, std::uint64_t seed) {
  nlohmann::json tests = nlohmann::json::array();
  nlohmann::json lessons = nlohmann::json::array();
  int total = 0, max_total = 0;
  for (const LessonGrade& g : grades) {
    const LessonInfo& l = *g.lesson;
    total += g.score();
    max_total += g.max_score();
    if (g.tensors.empty()) {
      tests.push_back({{"name", fmt::format("lesson {:02d}: {}", l.number, l.title)},
                       {"number", fmt::format("{:02d}", l.number)},
                       {"score", 0},
                       {"max_score", 1},
                       {"output", g.output + "\n" + g.digest_line()},
                       {"extra_data", extra_data(g)}});
    }
    for (std::size_t k = 0; k < g.tensors.size(); ++k) {
      const TensorGrade& t = g.tensors[k];
      // The first test of a lesson that does not compile carries the compiler's messages.
      const std::string output = k == 0 && g.verdict == "does not compile"
                                     ? g.output
                                     : fmt::format("{}", fmt::join(t.lines, "\n"));
      tests.push_back({{"name", fmt::format("lesson {:02d}, {}: {}", l.number, t.name(), t.title)},
                       {"number", fmt::format("{:02d}.{}", l.number, k + 1)},
                       {"score", t.pass ? 1 : 0},
                       {"max_score", 1},
                       {"output", output + "\n" + g.digest_line()},
                       {"extra_data", extra_data(g)}});
    }
    nlohmann::json lesson = extra_data(g);
    lesson.update({{"title", l.title},
                   {"verdict", g.verdict},
                   {"score", g.score()},
                   {"max_score", g.max_score()},
                   {"output", g.output}});
    lessons.push_back(lesson);
  }
  return {{"score", total},
          {"output", summary},
          {"tests", tests},
          {"extra_data",
           {{"graded", solution ? "solutions" : "exercises"},
            {"seed", seed},
            {"max_score", max_total},
            {"lessons", lessons}}}};
}

}  // namespace

namespace {

/// Reads `text` at `at`: the characters of `word` there move `at` past them.
bool take(std::string_view text, std::size_t& at, std::string_view word) {
  if (text.substr(at, word.size()) != word) return false;
  at += word.size();
  return true;
}

/// Reads one or more digits at `at`.
bool take_number(std::string_view text, std::size_t& at) {
  const std::size_t start = at;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
  return at > start;
}

bool word_ends(std::string_view text, std::size_t at) {
  return at == text.size() || !std::isalnum(static_cast<unsigned char>(text[at]));
}

/// At `at`, "3 x 3 grid" (or cube, mesh): how many "x" it has, and `at` past it; -1 if none.
int take_grid(std::string_view text, std::size_t& at, std::string& kind) {
  std::size_t i = at;
  if (!take_number(text, i)) return -1;
  int sides = 0;
  for (std::size_t j = i; take(text, j, " x ") && take_number(text, j); i = j) ++sides;
  for (const char* name : {"grid", "cube", "mesh"}) {
    std::size_t j = i;
    if (sides > 0 && take(text, j, " ") && take(text, j, name) && word_ends(text, j)) {
      kind = name;
      at = j;
      return sides;
    }
  }
  return -1;
}

/// At `at`, ", d = 2", " (p = 4 ranks)", " on 4 ranks": `at` past it, or false.
bool take_size(std::string_view text, std::size_t& at) {
  std::size_t i = at;
  take(text, i, ",");
  if (!take(text, i, " ")) return false;
  std::size_t j = i;
  if (take(text, j, "on ") && take_number(text, j) && take(text, j, " rank")) {
    take(text, j, "s");
    if (word_ends(text, j)) {
      at = j;
      return true;
    }
  }
  const bool open = take(text, i, "(");
  if (i >= text.size() || std::string_view("pqdt").find(text[i]) == std::string_view::npos) {
    return false;
  }
  ++i;
  if (!take(text, i, " = ") || !take_number(text, i)) return false;
  if (take(text, i, " rank")) take(text, i, "s");
  if (open && !take(text, i, ")")) return false;
  at = i;
  return true;
}

}  // namespace

std::string size_free_title(const std::string& title) {
  // "on a 3 x 3 grid" -> "on a q x q grid"; ", d = 2", ", q = 2", " (p = 4 ranks)" and
  // " on 4 ranks" go. Read by hand: std::regex draws false warnings from g++ 12 under the
  // sanitizers.
  const std::string_view text = title;
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const bool word_start = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    std::string kind;
    std::size_t next = at;
    if (word_start) {
      if (const int sides = take_grid(text, next, kind); sides > 0) {
        out += "q";
        for (int s = 0; s < sides; ++s) out += " x q";
        out += " " + kind;
        at = next;
        continue;
      }
    }
    if ((text[at] == ',' || text[at] == ' ') && take_size(text, next)) {
      at = next;
      continue;
    }
    out += text[at++];
  }
  return out;
}

std::string tolerance_share(const nlohmann::json& share, bool failed) {
  // a verdict file writes an infinite share (a tolerance of 0, exceeded) as null
  if (!share.is_number()) return failed ? ">1000%" : "-";
  const double used = share.get<double>();
  return used > 10 ? std::string(">1000%") : fmt::format("{:.0f}%", used * 100);
}

namespace {

/// "; the check says: ..." : the check's note on a failed tensor (which group a wrong sum was
/// taken over, what overlap needs), empty when it has none.
std::string check_note(const nlohmann::json& t) {
  const nlohmann::json note = t.value("note", nlohmann::json());
  return note.is_string() ? "; the check says: " + note.get<std::string>() : std::string();
}

}  // namespace

std::string describe_tensor(int np, const nlohmann::json& t) {
  const std::string used =
      tolerance_share(t.value("tolerance_used", nlohmann::json()), !t.value("pass", false));
  if (t.value("pass", false)) {
    return fmt::format("np={}: ok, max_abs {}, {} of the tolerance used", np,
                       number_text(t.value("max_abs", nlohmann::json()), "{:.3g}"), used);
  }
  // The judge's words where it had nothing of the exercise's to measure: not produced (its part
  // ended early, its job exited), or produced in the wrong extents.
  if (!t.value("produced", true) || !t.value("max_abs", nlohmann::json()).is_number()) {
    const nlohmann::json note = t.value("note", nlohmann::json());
    return fmt::format("np={}: FAIL, {}", np,
                       note.is_string() ? note.get<std::string>() : "not produced");
  }
  if (!t.value("replicas_identical", true)) {
    return fmt::format("np={}: FAIL, ranks that should hold the same values differ ({}){}{}", np,
                       t.value("replicas_differ", ""), rank_split(t), check_note(t));
  }
  if (t.value("nonfinite", 0) > 0) {
    return fmt::format("np={}: FAIL, {} NaN or Inf values, the first at {}{}{}", np,
                       t.value("nonfinite", 0), worst_place(t, "first_nonfinite"), rank_split(t),
                       check_note(t));
  }
  return fmt::format(
      "np={}: FAIL, max_abs {}, {} of the tolerance used; worst at {}: got {}, reference {}{}{}",
      np, number_text(t.value("max_abs", nlohmann::json()), "{:.3g}"), used,
      worst_place(t, "worst_index"), number_text(t.value("worst_got", nlohmann::json()), "{:.10g}"),
      number_text(t.value("worst_ref", nlohmann::json()), "{:.10g}"), rank_split(t), check_note(t));
}

int grade_lessons(const std::vector<LessonInfo>& lessons, bool solution,
                  const std::optional<std::string>& json, int timeout_seconds, std::uint64_t seed,
                  const std::filesystem::path& submission) {
  std::vector<LessonGrade> grades;
  for (const LessonInfo& l : lessons) {
    grades.push_back(grade_lesson(l, solution, timeout_seconds, seed, submission));
  }
  int total = 0, max_total = 0;
  std::string summary = fmt::format(
      "tplab lesson grade: every lesson's check run on the {} as they stand; each tensor a check "
      "compares is worth 1 point\n"
      "  {:>2}  {:>7}  {:<17} {}\n",
      solution ? "library's solutions" : "exercises", "#", "score", "verdict",
      "source checked (sha256)");
  for (const LessonGrade& g : grades) {
    total += g.score();
    max_total += g.max_score();
    summary += fmt::format("  {:02d}  {:>7}  {:<17} {} ({})\n", g.lesson->number,
                           fmt::format("{}/{}", g.score(), g.max_score()), g.verdict, g.source,
                           g.sha256.substr(0, 16));
  }
  summary += fmt::format("total: {} of {} points\n", total, max_total);
  summary +=
      fmt::format("inputs drawn from seed {} (--seed {} grades them again alike)\n", seed, seed);
  fmt::print("\n{:=<78}\n{}", "", summary);
  if (json) {
    write_file_safely(*json, results_json(grades, solution, summary, seed).dump(2) + "\n",
                      "--json");
    fmt::print("wrote the grades to {}\n", *json);
  }
  return 0;
}

}  // namespace tplab::app
