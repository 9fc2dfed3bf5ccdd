#include "lesson_catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace tplab::app {
namespace {

/// A hint as lesson.json gives it: a string, or {"for": [tensor, ...], "text": "..."}.
LessonHint parse_hint(const nlohmann::json& item, const std::filesystem::path& spec,
                      std::size_t k) {
  if (item.is_string()) return {{}, item.get<std::string>()};
  const bool ok = item.is_object() && item.contains("text") && item["text"].is_string() &&
                  item.contains("for") && item["for"].is_array() &&
                  std::all_of(item["for"].begin(), item["for"].end(),
                              [](const nlohmann::json& t) { return t.is_string(); });
  if (!ok) {
    throw UsageError(fmt::format(
        "{}: hint {} is neither a string nor {{\"for\": [\"Y\", ...], \"text\": \"...\"}} "
        "(the tensors it is about, as the lesson's check names them, and the hint)",
        spec.string(), k + 1));
  }
  return {item["for"].get<std::vector<std::string>>(), item["text"].get<std::string>()};
}

LessonInfo parse_lesson(const std::filesystem::path& dir) {
  const std::string name = dir.filename().string();
  const auto spec = dir / "lesson.json";
  std::ifstream in(spec);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("hints") || !j["hints"].is_array()) {
    throw UsageError(
        fmt::format("{} is not a lesson's JSON: it needs \"title\", \"goal\", \"world_sizes\" and "
                    "\"hints\" (see the other lessons)",
                    spec.string()));
  }
  LessonInfo l{std::stoi(name.substr(0, 2)),
               name,
               dir,
               j.value("title", ""),
               j.value("goal", ""),
               j.value("world_sizes", std::vector<int>{}),
               {},
               j.value("kind", "") == "bug hunt"};
  for (std::size_t k = 0; k < j["hints"].size(); ++k) {
    l.hints.push_back(parse_hint(j["hints"][k], spec, k));
  }
  return l;
}

/// Whether two names are one tensor's: "d_W1" and "d_w1" are (a check may spell it either way).
bool same_tensor(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

bool LessonHint::about(const std::string& tensor) const {
  return std::any_of(tensors.begin(), tensors.end(),
                     [&](const std::string& t) { return same_tensor(t, tensor); });
}

std::string LessonInfo::target() const {
  return fmt::format("lesson_{:02d}", number);
}

std::vector<LessonInfo> load_lessons(const std::filesystem::path& lessons_dir) {
  std::vector<LessonInfo> lessons;
  for (const auto& entry : std::filesystem::directory_iterator(lessons_dir)) {
    const std::string name = entry.path().filename().string();
    const auto spec = entry.path() / "lesson.json";
    if (name.size() < 4 || name[2] != '-' || !std::filesystem::exists(spec)) continue;
    lessons.push_back(parse_lesson(entry.path()));
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

std::vector<const LessonHint*> hints_in_order(const LessonInfo& l,
                                              const std::string& first_failed) {
  // about the failed tensor, general, about the other tensors: each in the file's order
  std::vector<const LessonHint*> about_it, general, others;
  for (const LessonHint& h : l.hints) {
    if (first_failed.empty()) {
      others.push_back(&h);
    } else if (h.about(first_failed)) {
      about_it.push_back(&h);
    } else {
      (h.tensors.empty() ? general : others).push_back(&h);
    }
  }
  about_it.insert(about_it.end(), general.begin(), general.end());
  about_it.insert(about_it.end(), others.begin(), others.end());
  return about_it;
}

std::string readme_without_answers(const std::string& readme, int lesson_number) {
  const std::string hidden =
      fmt::format("(answer hidden: ./tplab lesson show {} --answers)", lesson_number);
  std::string out;
  std::size_t at = 0;
  for (std::size_t open; (open = readme.find("<details", at)) != std::string::npos;) {
    const std::size_t close = readme.find("</details>", open);
    if (close == std::string::npos) break;  // an unclosed block is shown as it is
    out.append(readme, at, open - at);
    out += hidden;
    at = close + std::string_view("</details>").size();
  }
  out.append(readme, at, std::string::npos);
  return out;
}

}  // namespace tplab::app
