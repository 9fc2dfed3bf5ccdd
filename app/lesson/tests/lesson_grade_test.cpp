// How `lesson grade` names a test and words what a check found: names free of the world size
// (a test is the same at every world size and for every submission), the share of the
// tolerance capped where it says nothing more, and a failure's element and ranks kept.
#include "lesson_grade.hpp"

#include <gtest/gtest.h>

namespace tplab::app {
namespace {

TEST(GradeTitle, TakesTheWorldSizeOutOfEveryTitleTheChecksWrite) {
  EXPECT_EQ(size_free_title("SUMMA on a 1 x 1 grid, exact (integer inputs)"),
            "SUMMA on a q x q grid, exact (integer inputs)");
  EXPECT_EQ(size_free_title("SUMMA on a 3 x 3 grid, exact (integer inputs)"),
            "SUMMA on a q x q grid, exact (integer inputs)");
  EXPECT_EQ(size_free_title("3D linear pair on a 2 x 2 x 2 cube, forward, exact (integer inputs)"),
            "3D linear pair on a q x q x q cube, forward, exact (integer inputs)");
  EXPECT_EQ(size_free_title("2.5D block, real values (f64 tolerance), backward, d = 2, q = 2"),
            "2.5D block, real values (f64 tolerance), backward");
  EXPECT_EQ(size_free_title("row split (p = 4 ranks) on 4 ranks"), "row split");
  // numbers that belong to the title stay
  EXPECT_EQ(size_free_title("distributed LayerNorm, mean 1 and spread ~0.6 per token, forward "
                            "(f64 tolerance)"),
            "distributed LayerNorm, mean 1 and spread ~0.6 per token, forward (f64 tolerance)");
  EXPECT_EQ(size_free_title("bf16: the rounding, the dot product"),
            "bf16: the rounding, the dot product");
}

TEST(GradeText, TheShareOfTheToleranceIsCappedPastTenTimesIt) {
  EXPECT_EQ(tolerance_share(0.0, false), "0%");
  EXPECT_EQ(tolerance_share(0.374, false), "37%");
  EXPECT_EQ(tolerance_share(10.0, true), "1000%");
  EXPECT_EQ(tolerance_share(16666666666666.67, true), ">1000%");
  // null: an Inf (an exact check's tolerance of 0, exceeded) where the tensor failed
  EXPECT_EQ(tolerance_share(nullptr, true), ">1000%");
  EXPECT_EQ(tolerance_share(nullptr, false), "-");
}

TEST(GradeText, AFailedTensorKeepsWhereItsWorstElementLiesAndWhoseShardsAreWrong) {
  const nlohmann::json failed = {
      {"name", "Y"},           {"pass", false},
      {"max_abs", 3.0},        {"tolerance_used", 1.6666666666666667e13},
      {"worst_index", 41},     {"worst_got", 1.0},
      {"worst_ref", 4.0},      {"where", "Y[3, 5] (block rows 0..5, cols 4..7, held by rank 3)"},
      {"nonfinite", 0},        {"replicas_identical", true},
      {"ranks_wrong", {1, 3}}, {"ranks_right", {0, 2}}};
  EXPECT_EQ(describe_tensor(4, failed),
            "np=4: FAIL, max_abs 3, >1000% of the tolerance used; worst at Y[3, 5] (block rows "
            "0..5, cols 4..7, held by rank 3): got 1, reference 4; wrong on ranks 1, 3; right on "
            "ranks 0, 2");
  nlohmann::json older = failed;  // a verdict file without the place or the ranks
  older.erase("where");
  older.erase("ranks_wrong");
  older.erase("ranks_right");
  EXPECT_EQ(describe_tensor(4, older),
            "np=4: FAIL, max_abs 3, >1000% of the tolerance used; worst at index 41: got 1, "
            "reference 4");
  const nlohmann::json passed = {{"name", "Y"},         {"pass", true},      {"max_abs", 0.0},
                                 {"tolerance_used", 0}, {"ranks_wrong", {}}, {"ranks_right", {0}}};
  EXPECT_EQ(describe_tensor(1, passed), "np=1: ok, max_abs 0, 0% of the tolerance used");
}

}  // namespace
}  // namespace tplab::app
