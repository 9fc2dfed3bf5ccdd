// The pipeline as data: each schedule's actions per stage, what each keeps in flight, the
// mesh's stage axis, and the rules a pipelined run must meet, all without running anything.
#include "pipeline/stage_actions.hpp"

#include <gtest/gtest.h>

#include "mesh/mesh_layout.hpp"
#include "pipeline/pipeline_problem.hpp"

namespace tplab::pipeline {
namespace {

TEST(StageActions, GPipeRunsEveryForwardThenEveryBackward) {
  EXPECT_EQ(to_string(stage_actions(PipelineSchedule::gpipe, 4, 1, 3)), "F0 F1 F2 B0 B1 B2");
}

TEST(StageActions, OneFOneBWarmsUpWithStagesLeftThenAlternates) {
  // S = 4, M = 6: stage s warms up with S - s - 1 forwards
  EXPECT_EQ(to_string(stage_actions(PipelineSchedule::one_f_one_b, 4, 0, 6)),
            "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(to_string(stage_actions(PipelineSchedule::one_f_one_b, 4, 2, 6)),
            "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 B5");
  EXPECT_EQ(to_string(stage_actions(PipelineSchedule::one_f_one_b, 4, 3, 6)),
            "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5");
  // fewer micro-batches than the warm-up: every forward, then every backward
  EXPECT_EQ(to_string(stage_actions(PipelineSchedule::one_f_one_b, 4, 0, 2)), "F0 F1 B0 B1");
}

TEST(StageActions, InFlightIsMForGPipeAndStagesLeftFor1F1B) {
  for (int stages : {1, 2, 4}) {
    for (int m : {1, 2, 4, 8}) {
      for (int s = 0; s < stages; ++s) {
        EXPECT_EQ(most_in_flight(stage_actions(PipelineSchedule::gpipe, stages, s, m)), m);
        EXPECT_EQ(most_in_flight(stage_actions(PipelineSchedule::one_f_one_b, stages, s, m)),
                  std::min(stages - s, m))
            << "S=" << stages << " s=" << s << " M=" << m;
      }
    }
  }
}

TEST(StageActions, BackwardsRunInMicroBatchOrderOnEveryStage) {
  for (PipelineSchedule schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b}) {
    for (int s = 0; s < 4; ++s) {
      int next_forward = 0, next_backward = 0;
      for (const StageAction& a : stage_actions(schedule, 4, s, 8)) {
        if (a.pass == StageAction::Pass::forward) {
          EXPECT_EQ(a.micro, next_forward++);
        } else {
          EXPECT_EQ(a.micro, next_backward++);
          EXPECT_LT(a.micro, next_forward) << "B before its F";
        }
      }
      EXPECT_EQ(next_forward, 8);
      EXPECT_EQ(next_backward, 8);
    }
  }
}

TEST(MeshStages, RanksAreTensorThenPipelineThenData) {
  const MeshLayout mesh{.replicas = 2, .scheme_ranks = 2, .stages = 3};  // 12 ranks
  EXPECT_EQ(mesh.world_size(), 12);
  // world rank 9 = (replica 1 x 3 + stage 1) x 2 + scheme rank 1
  EXPECT_EQ(mesh.replica_of(9), 1);
  EXPECT_EQ(mesh.stage_of(9), 1);
  EXPECT_EQ(mesh.scheme_rank_of(9), 1);
  EXPECT_EQ(mesh.replica_ranks(9), (std::vector<int>{8, 9}));
  EXPECT_EQ(mesh.pp_ranks(9), (std::vector<int>{7, 9, 11}));
  EXPECT_EQ(mesh.dp_ranks(9), (std::vector<int>{3, 9}));
}

TEST(PipelineProblem, NamesEachBrokenRule) {
  const gpt::GptShape shape{BlockShape{4, 16, 32, 4}, 64, 4};
  EXPECT_EQ(pipeline_problem({.pp = 2, .micro_batches = 4}, shape, 4), "");
  EXPECT_NE(pipeline_problem({.pp = 3}, shape, 6).find("L = 4 does not split into 3"),
            std::string::npos);
  EXPECT_NE(pipeline_problem({.pp = 2}, shape, 3).find("world of 3 ranks"), std::string::npos);
  EXPECT_NE(pipeline_problem({.dp = 2, .pp = 2, .micro_batches = 4}, shape, 8)
                .find("b = 4 does not split into 8"),
            std::string::npos);
  EXPECT_NE(pipeline_problem({.micro_batches = 0}, shape, 2), "");
}

}  // namespace
}  // namespace tplab::pipeline
