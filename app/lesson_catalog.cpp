#include "lesson_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

std::string key(int lesson) {
  return fmt::format("{:02d}", lesson);
}

nlohmann::json parse_or_empty(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

}  // namespace

std::string LessonInfo::target() const {
  return fmt::format("lesson_{:02d}", number);
}

std::vector<LessonInfo> load_lessons(const std::filesystem::path& lessons_dir) {
  std::vector<LessonInfo> lessons;
  for (const auto& entry : std::filesystem::directory_iterator(lessons_dir)) {
    const std::string name = entry.path().filename().string();
    const auto spec = entry.path() / "lesson.json";
    if (name.size() < 4 || name[2] != '-' || !std::filesystem::exists(spec)) continue;
    std::ifstream in(spec);
    const nlohmann::json j = nlohmann::json::parse(in);
    lessons.push_back({std::stoi(name.substr(0, 2)), name, entry.path(),
                       j.at("title").get<std::string>(), j.at("goal").get<std::string>(),
                       j.at("world_sizes").get<std::vector<int>>(),
                       j.at("hints").get<std::vector<std::string>>()});
  }
  std::sort(lessons.begin(), lessons.end(),
            [](const LessonInfo& a, const LessonInfo& b) { return a.number < b.number; });
  return lessons;
}

const LessonInfo& find_lesson(const std::vector<LessonInfo>& lessons, int number) {
  for (const LessonInfo& l : lessons) {
    if (l.number == number) return l;
  }
  std::vector<int> known;
  for (const LessonInfo& l : lessons) known.push_back(l.number);
  throw UsageError(fmt::format("there is no lesson {}; the lessons are {} (./tplab lesson list)",
                               number, fmt::join(known, ", ")));
}

std::string progress_name(Progress p) {
  switch (p) {
    case Progress::not_started:
      return "not started";
    case Progress::wrong:
      return "wrong";
    case Progress::passed:
      return "passed";
  }
  return "not started";
}

ProgressFile::ProgressFile(std::filesystem::path path)
    : path_(std::move(path)), json_(read_own_file(path_, "the lesson progress").value_or("")) {}

Progress ProgressFile::progress(int lesson) const {
  const nlohmann::json j = parse_or_empty(json_);
  const std::string p = j.value(key(lesson), nlohmann::json::object()).value("progress", "");
  if (p == "passed") return Progress::passed;
  if (p == "wrong") return Progress::wrong;
  return Progress::not_started;
}

int ProgressFile::hints_shown(int lesson) const {
  return parse_or_empty(json_).value(key(lesson), nlohmann::json::object()).value("hints_shown", 0);
}

void ProgressFile::set_progress(int lesson, Progress p) {
  nlohmann::json j = parse_or_empty(json_);
  j[key(lesson)]["progress"] = progress_name(p);
  json_ = j.dump(2);
  save();
}

void ProgressFile::set_hints_shown(int lesson, int count) {
  nlohmann::json j = parse_or_empty(json_);
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
  write_file_safely(path_, json_ + "\n", "the lesson progress");
}

}  // namespace tplab::app
