#include "lesson_submissions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "lesson_grade.hpp"
#include "safe_output.hpp"

namespace tplab::app {
namespace {

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// The students' folders of `submissions`, by name.
std::vector<std::filesystem::path> student_folders(const std::filesystem::path& submissions) {
  std::vector<std::filesystem::path> students;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(submissions, error)) {
    if (entry.is_directory() && !entry.path().filename().string().starts_with(".")) {
      students.push_back(entry.path());
    }
  }
  if (error) {
    throw UsageError(fmt::format("--submissions {}: {}", submissions.string(), error.message()));
  }
  std::sort(students.begin(), students.end());
  return students;
}

}  // namespace

int grade_submissions(const std::vector<LessonInfo>& lessons,
                      const std::filesystem::path& submissions, const std::filesystem::path& out,
                      int timeout_seconds, std::uint64_t seed) {
  const std::vector<std::filesystem::path> students = student_folders(submissions);
  if (students.empty()) {
    throw UsageError(fmt::format(
        "--submissions {} holds no student's folder (one folder per student, each with the "
        "lessons' folders: STUDENT/01-column-split/exercise.cpp, ...)",
        submissions.string()));
  }
  require_output_folder(out.string(), "--out");
  make_output_folder(out.string(), "--out");
  std::string gradebook = "student,lesson,score,max_score\n";
  for (std::size_t i = 0; i < students.size(); ++i) {
    const std::string student = students[i].filename().string();
    fmt::print("\n######## student {} of {}: {} ########\n", i + 1, students.size(), student);
    std::fflush(stdout);
    const std::filesystem::path folder = out / student;
    make_output_folder(folder.string(), "--out");
    const std::string json = (folder / "results.json").string();
    grade_lessons(lessons, false, json, timeout_seconds, seed,
                  std::filesystem::absolute(students[i]));
    const std::optional<std::string> text = read_own_file(json, "a student's results.json");
    const nlohmann::json results = nlohmann::json::parse(text.value_or("{}"));
    for (const nlohmann::json& lesson : results.at("extra_data").at("lessons")) {
      gradebook +=
          fmt::format("{},{:02d},{},{}\n", csv_field(student), lesson.at("lesson").get<int>(),
                      lesson.at("score").dump(), lesson.at("max_score").dump());
    }
  }
  const std::filesystem::path book = out / "gradebook.csv";
  write_file_safely(book, gradebook, "--out");
  fmt::print("\ngraded {} students; their results.json in {}/STUDENT/, the gradebook in {}\n",
             students.size(), out.string(), book.string());
  return 0;
}

}  // namespace tplab::app
