#include "lesson_progress.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "json_text.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

constexpr std::string_view kWhat = "the lesson progress";

std::string key(int lesson) {
  return fmt::format("{:02d}", lesson);
}

nlohmann::json parse_or_empty(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

/// An entry of an older version: {"progress": "passed" | "wrong" | "not started"}.
LessonProgress older_entry(const nlohmann::json& entry) {
  LessonProgress p;
  const std::string said = text_or_empty(entry, "progress");
  p.checked = !said.empty();
  p.state = said == "passed"  ? LessonState::passed
            : said == "wrong" ? LessonState::wrong
                              : LessonState::not_started;
  p.passed_before = p.state == LessonState::passed;
  return p;
}

}  // namespace

std::string LessonProgress::words() const {
  if (passed_before && state != LessonState::passed) {
    return "passed before, now " + state_words(state);
  }
  return state_words(state);
}

ProgressFile::ProgressFile(std::filesystem::path path)
    : path_(std::move(path)), json_(read_own_file(path_, kWhat).value_or("")) {}

LessonProgress ProgressFile::lesson(int lesson) const {
  const nlohmann::json entry = parse_or_empty(json_).value(key(lesson), nlohmann::json::object());
  if (!entry.is_object()) return {};
  LessonProgress p = entry.contains("state") ? LessonProgress{} : older_entry(entry);
  if (entry.contains("state")) {
    p.checked = true;
    p.state = state_from_key(text_or_empty(entry, "state"));
    p.first_failed = text_or_empty(entry, "first_failed");
    p.passed_before = entry.value("passed_before", false) || p.state == LessonState::passed;
    for (const auto& part : entry.value("parts", nlohmann::json::array())) {
      if (!part.is_object()) continue;
      p.parts.push_back({text_or_empty(part, "name"), text_or_empty(part, "verdict"),
                         text_or_empty(part, "todo")});
    }
  }
  const auto hints = entry.find("hints_shown");
  p.hints_shown = hints != entry.end() && hints->is_number_integer() ? hints->get<int>() : 0;
  return p;
}

void ProgressFile::record_check(int lesson, const LessonSummary& summary) {
  nlohmann::json j = parse_or_empty(json_);
  const bool passed_before = this->lesson(lesson).passed_before;
  nlohmann::json parts = nlohmann::json::array();
  for (const PartSummary& part : summary.parts) {
    parts.push_back({{"name", part.name}, {"verdict", part.verdict()}, {"todo", part.todo}});
  }
  nlohmann::json& entry = j[key(lesson)];
  if (!entry.is_object()) entry = nlohmann::json::object();
  entry.erase("progress");
  entry["state"] = state_key(summary.state);
  entry["parts"] = parts;
  entry["first_failed"] = summary.first_failed;
  entry["passed_before"] = passed_before || summary.state == LessonState::passed;
  json_ = j.dump(2);
  save();
}

void ProgressFile::set_hints_shown(int lesson, int count) {
  nlohmann::json j = parse_or_empty(json_);
  if (!j[key(lesson)].is_object()) j[key(lesson)] = nlohmann::json::object();
  j[key(lesson)]["hints_shown"] = count;
  json_ = j.dump(2);
  save();
}

void ProgressFile::forget(int lesson) {
  nlohmann::json j = parse_or_empty(json_);
  j.erase(key(lesson));
  json_ = j.dump(2);
  save();
}

void ProgressFile::save() const {
  write_file_safely(path_, json_ + "\n", kWhat);
}

std::filesystem::path progress_path(const std::filesystem::path& source_dir) {
  const char* named = std::getenv(kLessonProgressVariable);
  if (named != nullptr && *named != '\0') return named;
  return source_dir / "lessons" / ".progress.json";
}

bool adopt_old_progress(const std::filesystem::path& old_path,
                        const std::filesystem::path& new_path) {
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(new_path, error))) return false;
  const std::optional<std::string> text = read_own_file(old_path, kWhat);
  if (!text) return false;
  write_file_safely(new_path, *text, kWhat);
  std::filesystem::remove(old_path);
  return true;
}

}  // namespace tplab::app
