// A lesson's hints (general ones and those about tensors, in the order lesson hint gives them)
// and its README with the worked answers hidden.
#include "lesson_catalog.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "scratch_folder.hpp"

namespace tplab::app {
namespace {

using testing::put;
using testing::ScratchFolder;

/// A lessons folder with one lesson, 01-demo, whose lesson.json has these hints.
std::vector<LessonInfo> lessons_with_hints(const ScratchFolder& dir, const std::string& hints) {
  std::filesystem::create_directory(dir / "01-demo");
  put(dir / "01-demo/lesson.json",
      R"({"title": "demo", "goal": "g", "world_sizes": [1, 2], "hints": )" + hints + "}");
  return load_lessons(dir.path());
}

std::vector<std::string> texts(const std::vector<const LessonHint*>& hints) {
  std::vector<std::string> out;
  for (const LessonHint* h : hints) out.push_back(h->text);
  return out;
}

TEST(LessonHints, AfterAFailureItsHintsComeFirstThenTheGeneralOnesThenTheOthers) {
  ScratchFolder dir;
  const auto lessons = lessons_with_hints(dir, R"(["general", {"for": ["Y_r"], "text": "about Y_r"},
               {"for": ["Y", "d_W1"], "text": "about Y"}, "also general",
               {"for": ["Y"], "text": "more on Y"}])");
  const LessonInfo& l = find_lesson(lessons, 1);
  EXPECT_EQ(
      texts(hints_in_order(l, "Y")),
      (std::vector<std::string>{"about Y", "more on Y", "general", "also general", "about Y_r"}));
  EXPECT_EQ(
      texts(hints_in_order(l, "d_w1")),
      (std::vector<std::string>{"about Y", "general", "also general", "about Y_r", "more on Y"}));
  // a failure no hint is about: the general hints first
  EXPECT_EQ(
      texts(hints_in_order(l, "b2")),
      (std::vector<std::string>{"general", "also general", "about Y_r", "about Y", "more on Y"}));
  // nothing failed: the file's order, the exercise's steps
  EXPECT_EQ(
      texts(hints_in_order(l, "")),
      (std::vector<std::string>{"general", "about Y_r", "about Y", "also general", "more on Y"}));
}

TEST(LessonHints, AHintOfNeitherFormIsRefusedNamingTheFile) {
  ScratchFolder dir;
  try {
    lessons_with_hints(dir, R"(["fine", {"text": "no for"}])");
    FAIL() << "a hint without \"for\" was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("01-demo/lesson.json: hint 2 is neither"),
              std::string::npos)
        << e.what();
  }
}

TEST(ReadmeWithoutAnswers, HidesEachDetailsBlockAndKeepsTheRest) {
  const std::string readme =
      "1. Question one?\n   <details><summary>answer</summary>42</details>\n"
      "2. Question two?\n<details>\n<summary>answer</summary>\nline\nline\n</details>\nend\n";
  EXPECT_EQ(readme_without_answers(readme, 3),
            "1. Question one?\n   (answer hidden: ./tplab lesson show 3 --answers)\n"
            "2. Question two?\n(answer hidden: ./tplab lesson show 3 --answers)\nend\n");
  EXPECT_EQ(readme_without_answers("no answers\n", 3), "no answers\n");
}

}  // namespace
}  // namespace tplab::app
