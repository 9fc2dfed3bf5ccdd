// What a lesson program's verdict file says, in its form with parts and in the older one
// without, and what the runs at every world size say together.
#include "lesson_verdict.hpp"

#include <gtest/gtest.h>

namespace tplab::app {
namespace {

/// A verdict file of today's form: forward passes, backward still holds a TODO.
nlohmann::json forward_done_backward_not() {
  return nlohmann::json::parse(R"({
    "verdict": "in_progress",
    "parts": [{"name": "forward", "verdict": "pass", "todo": null},
              {"name": "backward", "verdict": "not_started", "todo": "/src/lessons/03/exercise.cpp:42"}],
    "first_failed": null,
    "reports": [{"title": "forward", "part": "forward",
                 "checks": [{"name": "y", "pass": true}]}]})");
}

/// A verdict file of the older form, no parts: Y_r passes, Y fails.
nlohmann::json older_form_wrong() {
  return nlohmann::json::parse(R"({
    "verdict": "wrong", "todo": "",
    "reports": [{"title": "column split",
                 "tensors": [{"name": "Y_r", "pass": true}, {"name": "Y", "pass": false}]}]})");
}

TEST(ParseRunVerdict, ReadsThePartsAndTheirTodo) {
  const auto v = parse_run_verdict(forward_done_backward_not());
  ASSERT_TRUE(v);
  EXPECT_EQ(v->verdict, "in_progress");
  ASSERT_EQ(v->parts.size(), 2u);
  EXPECT_EQ(v->parts[0].name, "forward");
  EXPECT_EQ(v->parts[0].verdict, "pass");
  EXPECT_EQ(v->parts[1].verdict, "not_started");
  EXPECT_EQ(v->parts[1].todo, "/src/lessons/03/exercise.cpp:42");
  EXPECT_EQ(v->first_failed, "");
}

TEST(ParseRunVerdict, TakesTheOlderFormAsOnePartNamedForward) {
  const auto v = parse_run_verdict(older_form_wrong());
  ASSERT_TRUE(v);
  ASSERT_EQ(v->parts.size(), 1u);
  EXPECT_EQ(v->parts[0].name, "forward");
  EXPECT_EQ(v->parts[0].verdict, "wrong");
  EXPECT_EQ(v->first_failed, "Y");  // found in the reports, in their order
}

TEST(ParseRunVerdict, RefusesWhatIsNoVerdict) {
  EXPECT_FALSE(parse_run_verdict(nlohmann::json::parse(R"({"verdict": "maybe"})")));
  EXPECT_FALSE(parse_run_verdict(nlohmann::json::parse(R"({"verdict": "in_progress"})")));
  EXPECT_FALSE(parse_run_verdict(nlohmann::json::parse(
      R"({"verdict": "pass", "parts": [{"name": "forward", "verdict": "done"}]})")));
  EXPECT_FALSE(parse_run_verdict(nlohmann::json::array()));
}

TEST(ReportTensors, ReadsTensorsOrChecks) {
  EXPECT_EQ(report_tensors(older_form_wrong()["reports"][0]).size(), 2u);
  EXPECT_EQ(report_tensors(forward_done_backward_not()["reports"][0]).size(), 1u);
  EXPECT_TRUE(report_tensors(nlohmann::json::object()).empty());
}

TEST(Summarize, ForwardDoneAndBackwardNotIsInProgress) {
  const auto v = parse_run_verdict(forward_done_backward_not());
  const LessonSummary s = summarize({{1, v}, {2, v}, {4, v}});
  EXPECT_EQ(s.state, LessonState::in_progress);
  ASSERT_EQ(s.parts.size(), 2u);
  EXPECT_EQ(describe_part(s.parts[0], "/src/lessons/03"), "forward: passed at 1, 2, 4 ranks");
  EXPECT_EQ(describe_part(s.parts[1], "/src/lessons/03"),
            "backward: not started (TODO at exercise.cpp:42)");
}

TEST(Summarize, APartWrongAtOneWorldSizeMakesTheLessonWrong) {
  RunVerdict pass{"pass", {{"forward", "pass", ""}}, ""};
  RunVerdict wrong{"wrong", {{"forward", "wrong", ""}}, "Y"};
  const LessonSummary s = summarize({{1, pass}, {2, wrong}, {4, wrong}});
  EXPECT_EQ(s.state, LessonState::wrong);
  EXPECT_EQ(s.first_failed, "Y");
  EXPECT_EQ(describe_part(s.parts[0], "/x"), "forward: WRONG at 2, 4 ranks (passed at 1 rank)");
}

TEST(Summarize, EveryPartPassingEverywhereIsPassedAndNoPartWrittenIsNotStarted) {
  RunVerdict pass{"pass", {{"forward", "pass", ""}, {"backward", "pass", ""}}, ""};
  EXPECT_EQ(summarize({{1, pass}, {2, pass}}).state, LessonState::passed);
  RunVerdict todo{"not_started", {{"forward", "not_started", "a.cpp:1"}}, ""};
  EXPECT_EQ(summarize({{1, todo}, {2, todo}}).state, LessonState::not_started);
}

TEST(Summarize, ARunThatLeftNoVerdictMakesTheLessonWrong) {
  RunVerdict pass{"pass", {{"forward", "pass", ""}}, ""};
  const LessonSummary s = summarize({{1, pass}, {2, std::nullopt}});
  EXPECT_EQ(s.state, LessonState::wrong);
  EXPECT_EQ(s.no_verdict_at, std::vector<int>{2});
}

TEST(LessonState, KeysAndWordsGoBothWays) {
  for (LessonState s : {LessonState::not_started, LessonState::in_progress, LessonState::wrong,
                        LessonState::passed}) {
    EXPECT_EQ(state_from_key(state_key(s)), s);
  }
  EXPECT_EQ(state_words(LessonState::in_progress), "in progress");
}

}  // namespace
}  // namespace tplab::app
