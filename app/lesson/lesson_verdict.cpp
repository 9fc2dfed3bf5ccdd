#include "lesson_verdict.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "json_text.hpp"

namespace tplab::app {
namespace {

bool known_part_verdict(const std::string& v) {
  return v == "pass" || v == "wrong" || v == "not_started";
}

/// The first tensor that failed, in report order, for a file that does not say it.
std::string first_failed_in_reports(const nlohmann::json& document) {
  const nlohmann::json reports = document.value("reports", nlohmann::json::array());
  for (const auto& report : reports) {
    for (const auto& t : report_tensors(report)) {
      if (!t.value("pass", false)) return t.value("name", "");
    }
  }
  return {};
}

/// "1, 2, 4 ranks", "1 rank".
std::string ranks(const std::vector<int>& sizes) {
  return fmt::format("{} rank{}", fmt::join(sizes, ", "),
                     sizes.size() == 1 && sizes[0] == 1 ? "" : "s");
}

PartSummary& part_named(std::vector<PartSummary>& parts, const std::string& name) {
  const auto it = std::find_if(parts.begin(), parts.end(),
                               [&](const PartSummary& p) { return p.name == name; });
  if (it != parts.end()) return *it;
  parts.push_back({name, {}, {}, {}, {}});
  return parts.back();
}

LessonState state_of(const LessonSummary& s) {
  if (!s.no_verdict_at.empty()) return LessonState::wrong;
  std::size_t passed = 0, not_started = 0;
  for (const PartSummary& p : s.parts) {
    const std::string v = p.verdict();
    if (v == "wrong") return LessonState::wrong;
    passed += v == "pass" ? 1 : 0;
    not_started += v == "not_started" ? 1 : 0;
  }
  if (not_started == s.parts.size()) return LessonState::not_started;
  return passed == s.parts.size() ? LessonState::passed : LessonState::in_progress;
}

}  // namespace

const nlohmann::json& report_tensors(const nlohmann::json& report) {
  static const nlohmann::json none = nlohmann::json::array();
  for (const char* key : {"tensors", "checks"}) {
    const auto it = report.find(key);
    if (it != report.end() && it->is_array()) return *it;
  }
  return none;
}

std::optional<RunVerdict> parse_run_verdict(const nlohmann::json& document) {
  if (!document.is_object()) return std::nullopt;
  RunVerdict run{text_or_empty(document, "verdict"), {}, text_or_empty(document, "first_failed")};
  if (!known_part_verdict(run.verdict) && run.verdict != "in_progress") return std::nullopt;
  const auto parts = document.find("parts");
  if (parts == document.end() || !parts->is_array()) {
    if (run.verdict == "in_progress") return std::nullopt;  // a whole run is one part
    run.parts.push_back({"forward", run.verdict, text_or_empty(document, "todo")});
  } else {
    for (const auto& part : *parts) {
      if (!part.is_object()) return std::nullopt;
      PartVerdict p{text_or_empty(part, "name"), text_or_empty(part, "verdict"),
                    text_or_empty(part, "todo")};
      if (p.name.empty() || !known_part_verdict(p.verdict)) return std::nullopt;
      run.parts.push_back(std::move(p));
    }
  }
  if (run.first_failed.empty() && !document.contains("first_failed")) {
    run.first_failed = first_failed_in_reports(document);
  }
  return run;
}

std::string state_key(LessonState state) {
  switch (state) {
    case LessonState::in_progress:
      return "in_progress";
    case LessonState::wrong:
      return "wrong";
    case LessonState::passed:
      return "passed";
    case LessonState::not_started:
      break;
  }
  return "not_started";
}

LessonState state_from_key(const std::string& key) {
  for (LessonState s : {LessonState::in_progress, LessonState::wrong, LessonState::passed}) {
    if (key == state_key(s)) return s;
  }
  return LessonState::not_started;
}

std::string state_words(LessonState state) {
  std::string words = state_key(state);
  std::replace(words.begin(), words.end(), '_', ' ');
  return words;
}

std::string PartSummary::verdict() const {
  if (!wrong_at.empty()) return "wrong";
  if (!not_started_at.empty()) return "not_started";
  return "pass";
}

LessonSummary summarize(const std::vector<WorldVerdict>& runs) {
  LessonSummary s;
  for (const WorldVerdict& run : runs) {
    if (!run.verdict) {
      s.no_verdict_at.push_back(run.np);
      continue;
    }
    for (const PartVerdict& p : run.verdict->parts) {
      PartSummary& part = part_named(s.parts, p.name);
      if (p.verdict == "pass") part.passed_at.push_back(run.np);
      if (p.verdict == "wrong") part.wrong_at.push_back(run.np);
      if (p.verdict == "not_started") part.not_started_at.push_back(run.np);
      if (part.todo.empty()) part.todo = p.todo;
    }
    if (s.first_failed.empty()) s.first_failed = run.verdict->first_failed;
  }
  s.state = state_of(s);
  return s;
}

std::string describe_part(const PartSummary& part, const std::filesystem::path& lesson_dir) {
  const std::string v = part.verdict();
  if (v == "pass") return fmt::format("{}: passed at {}", part.name, ranks(part.passed_at));
  if (v == "wrong") {
    return fmt::format("{}: WRONG at {}{}", part.name, ranks(part.wrong_at),
                       part.passed_at.empty()
                           ? std::string()
                           : fmt::format(" (passed at {})", ranks(part.passed_at)));
  }
  std::string todo = part.todo;
  const std::string prefix = lesson_dir.string() + "/";
  if (todo.starts_with(prefix)) todo.erase(0, prefix.size());
  return fmt::format("{}: not started{}", part.name,
                     todo.empty() ? std::string() : " (TODO at " + todo + ")");
}

}  // namespace tplab::app
