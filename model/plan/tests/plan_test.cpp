// The plan's formulas by hand: the 1F1B bubble and activations in flight, a device's memory,
// the DP all-reduce's bytes, the rank orders' groups, one small layout priced on paper, the
// enumeration of every factorisation, refusals of bad input, and the seeds' 128-GPU cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "alpha_beta.hpp"
#include "core/error.hpp"
#include "plan/cluster_plan.hpp"
#include "plan/data_parallel_sync.hpp"
#include "plan/pipeline_schedule.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::model::plan {
namespace {

/// Round numbers: 1 GFLOP/s, 1 GB/s within a node, 0.1 GB/s between, no latency, 2-byte elements.
HardwareProfile paper_profile() {
  HardwareProfile hw;
  hw.name = "paper";
  hw.gpus_per_node = 4;
  hw.matmul_flops_per_s = 1e9;
  hw.bytes_per_element = 2;
  hw.memory_bytes = 1e6;
  hw.intra_node.rate = {0, 1e9};
  hw.inter_node = Link{.rate = {0, 1e8}, .per_collective = {}};
  return hw;
}

/// L 2, h 8, 2 heads, s 4, V 16; B 4 sequences in micro-batches of 1; 4 devices on one node.
PlanRequest paper_request() {
  PlanRequest r;
  r.model = {.layers = 2, .hidden = 8, .heads = 2, .seq = 4, .vocab = 16};
  r.batch = {.global_batch = 4, .micro_batch = 1};
  r.hardware = paper_profile();
  r.devices = 4;
  r.ranks_per_node = 4;
  r.memory_bytes = r.hardware.memory_bytes;
  r.efficiency = 1.0;
  r.schemes = scheme_names();
  return r;
}

/// The seeds' cluster: 128 DGX H100 GPUs, 8 per node, and the default GPT.
PlanRequest seeds_request() {
  PlanRequest r;
  r.hardware = find_profile(available_profiles(), "dgx-h100");
  r.devices = 128;
  r.ranks_per_node = 8;
  r.memory_bytes = r.hardware.memory_bytes;
  r.schemes = scheme_names();
  return r;
}

// ---- the pipeline ------------------------------------------------------------------------------

TEST(Pipeline, BubbleIsPMinusOneOverMPlusPMinusOne) {
  EXPECT_EQ(bubble_fraction(1, 64), 0.0) << "one stage has no bubble";
  EXPECT_DOUBLE_EQ(bubble_fraction(4, 64), 3.0 / 67.0);
  EXPECT_DOUBLE_EQ(bubble_fraction(8, 1), 7.0 / 8.0) << "one micro-batch: one stage busy at a time";
  EXPECT_DOUBLE_EQ(pipeline_time_s(2.0, 4, 8), 22.0) << "(m + p - 1) stage times";
}

TEST(Pipeline, FirstStageKeepsPMicroBatchesTheLastOne) {
  EXPECT_EQ(micro_batches_in_flight(0, 4, 64), 4);
  EXPECT_EQ(micro_batches_in_flight(1, 4, 64), 3);
  EXPECT_EQ(micro_batches_in_flight(3, 4, 64), 1);
  EXPECT_EQ(micro_batches_in_flight(0, 8, 2), 2) << "never more than there are micro-batches";
  EXPECT_EQ(stage_boundary_elements(2048, 8192, 4), 2048 * 8192 / 4);
}

// ---- memory and the DP all-reduce --------------------------------------------------------------

TEST(Memory, MixedPrecisionAdamIsSixteenBytesPerParameterWithTwoByteWeights) {
  const DeviceMemory m = device_memory(1000, 500, 2);
  EXPECT_EQ(m.weights, 2000);
  EXPECT_EQ(m.gradients, 2000);
  EXPECT_EQ(m.optimizer, 12000);
  EXPECT_EQ(m.activations, 1000);
  EXPECT_EQ(m.total(), 17000);
}

TEST(DataParallel, RingAllReduceMovesTwoDMinusOneOverDOfTheGradients) {
  const PredictedCollective sync = gradient_all_reduce(1'000'000, 8);
  EXPECT_DOUBLE_EQ(sync.bus_elements(), 2.0 * 7 / 8 * 1'000'000);
  const CollectiveTime t = collective_time(sync, {1e-6, 1e9}, 2);
  EXPECT_DOUBLE_EQ(t.latency_s, 14e-6) << "2 (d - 1) ring steps";
  EXPECT_DOUBLE_EQ(t.bandwidth_s, 1.75e6 * 2 / 1e9);
  EXPECT_EQ(gradient_all_reduce(1'000'000, 1).bus_elements(), 0.0) << "one replica syncs nothing";
}

// ---- layouts and rank orders -------------------------------------------------------------------

TEST(Layouts, EveryFactorisationOnceAndNothingElse) {
  for (const auto& [devices, count] : {std::pair{128, 36}, {12, 18}, {1, 1}, {7, 3}}) {
    const auto layouts = factorisations(devices);
    EXPECT_EQ(layouts.size(), static_cast<std::size_t>(count)) << devices;
    std::set<std::tuple<int, int, int>> seen;
    for (const ParallelLayout& l : layouts) {
      EXPECT_EQ(l.devices(), devices);
      seen.insert({l.dp, l.tp, l.pp});
    }
    EXPECT_EQ(seen.size(), layouts.size()) << "no layout twice";
  }
}

/// The ranks of world rank 0's group in `groups` on `devices` ranks.
std::vector<int> group_of_rank_zero(const GroupLayout& groups, int devices) {
  std::vector<int> members;
  for (int r = 0; r < devices; ++r) {
    if (groups.color(r) == groups.color(0)) members.push_back(r);
  }
  return members;
}

TEST(Layouts, TpIsFastestThenPpThenDpOrThenDpThenPp) {
  const ParallelLayout pp_next{2, 2, 2, RankOrder::tp_pp_dp};
  EXPECT_EQ(world_rank(pp_next, 1, 1, 1), 1 + 2 + 4);
  EXPECT_EQ(world_rank(pp_next, 0, 1, 0), 2);
  EXPECT_EQ(group_of_rank_zero(tensor_parallel_groups(pp_next), 8), (std::vector<int>{0, 1}));
  EXPECT_EQ(group_of_rank_zero(pipeline_groups(pp_next), 8), (std::vector<int>{0, 2}));
  EXPECT_EQ(group_of_rank_zero(data_parallel_groups(pp_next), 8), (std::vector<int>{0, 4}));
  const ParallelLayout dp_next{2, 2, 2, RankOrder::tp_dp_pp};
  EXPECT_EQ(world_rank(dp_next, 1, 0, 0), 2);
  EXPECT_EQ(group_of_rank_zero(pipeline_groups(dp_next), 8), (std::vector<int>{0, 4}));
  EXPECT_EQ(group_of_rank_zero(data_parallel_groups(dp_next), 8), (std::vector<int>{0, 2}));
}

TEST(Layouts, SchemeGroupsRepeatInEveryTpGroup) {
  // 2D on q = 2: rows {0, 1} and {2, 3} of the grid; with TP 4 x DP 2 the second copy's rows
  // are {4, 5} and {6, 7}, never merged with the first copy's.
  const RankCost cost = rank_cost("2d", {}, 4, {2, 4, 8, 2}, Workload::block);
  const auto row = std::find_if(cost.groups.begin(), cost.groups.end(),
                                [](const GroupLayout& g) { return g.name == "row"; });
  ASSERT_NE(row, cost.groups.end());
  const GroupLayout world = within_tensor_parallel_groups({2, 4, 1}, *row);
  EXPECT_EQ(group_of_rank_zero(world, 8), (std::vector<int>{0, 1}));
  EXPECT_NE(world.color(0), world.color(4));
  EXPECT_EQ(world.color(4), world.color(5));
}

// ---- one layout on paper -----------------------------------------------------------------------

TEST(Estimate, DpOneTpTwoPpTwoOnPaper) {
  const LayoutEstimate e = estimate_layout(paper_request(), {1, 2, 2}, "1d");
  EXPECT_EQ(e.micro_batches, 4);
  EXPECT_EQ(e.layers_per_stage, 1);
  // Stage 0, the fullest: one block, (12 h^2 + 7 h) / 2 + 6 h = 460 parameters, the token
  // embedding's half V/2 h = 64 and the positions s h = 32: 556. Activations of 1D, 4 m h +
  // 12 m h / t + b n s^2 / t + 2 m = 344 per micro-batch, 2 micro-batches in flight.
  EXPECT_EQ(e.memory_stage, 0);
  EXPECT_EQ(e.memory.weights, 556 * 2);
  EXPECT_EQ(e.memory.gradients, 556 * 2);
  EXPECT_EQ(e.memory.optimizer, 556 * 12);
  EXPECT_EQ(e.memory.activations, 688 * 2);
  // The last stage is the slowest: 3 (24 m h^2 + 4 b s^2 h) / 2 = 9984 FLOPs for its block and
  // 6 m h V/2 = 1536 for the head; 1D's 4 all-reduces of m h = 32: 128 bus elements, 256 bytes;
  // 2 sends of m h / 2 = 16 elements, 32 bytes each.
  const double stage_s = 11520e-9 + 256e-9 + 64e-9;
  EXPECT_DOUBLE_EQ(e.compute_s, 4 * 11520e-9);
  EXPECT_DOUBLE_EQ(e.tp_comm_s, 4 * 256e-9);
  EXPECT_DOUBLE_EQ(e.p2p_s, 4 * 64e-9);
  EXPECT_DOUBLE_EQ(e.bubble_s, stage_s) << "(p - 1) stage times";
  EXPECT_EQ(e.dp_comm_s, 0.0);
  EXPECT_DOUBLE_EQ(e.step_s(), 5 * stage_s);
  EXPECT_DOUBLE_EQ(e.bubble_fraction, 1.0 / 5.0);
  EXPECT_FALSE(e.tp_inter_node);
  EXPECT_TRUE(e.fits_memory);
}

TEST(Estimate, DpGroupsAcrossNodesUseTheInterNodeLink) {
  PlanRequest r = paper_request();
  r.ranks_per_node = 2;  // TP 2 fills a node; the DP pair {0, 2} spans two
  const LayoutEstimate e = estimate_layout(r, {2, 2, 1}, "1d");
  EXPECT_FALSE(e.tp_inter_node);
  EXPECT_TRUE(e.dp_group.crosses_nodes());
  // One device holds both blocks (2 x 460), the embedding half and positions (96) and the
  // final LayerNorm (16): 1032 gradients, all-reduced by 2 replicas: 1032 bus elements.
  EXPECT_DOUBLE_EQ(e.dp_bus_bytes, 1032 * 2);
  EXPECT_DOUBLE_EQ(e.dp_comm_s, 1032 * 2 / 1e8);
  r.ranks_per_node = 1;
  EXPECT_TRUE(estimate_layout(r, {2, 2, 1}, "1d").tp_inter_node) << "TP 2 on nodes of 1";
}

TEST(Estimate, MfuIsModelFlopsOverStepTimesDevicesTimesPeak) {
  const PlanRequest r = paper_request();
  const LayoutEstimate e = estimate_layout(r, {1, 2, 2}, "1d");
  EXPECT_DOUBLE_EQ(e.model_flops, 4 * (2 * 19968.0 + 6 * 4 * 8 * 16));
  EXPECT_DOUBLE_EQ(e.mfu, e.model_flops / (e.step_s() * 4 * 1e9));
}

// ---- the whole plan ----------------------------------------------------------------------------

TEST(Plan, EveryFactorisationAppearsOncePerSchemeAsPricedOrSkipped) {
  const PlanRequest r = seeds_request();
  const ClusterPlan plan = plan_cluster(r);
  std::multiset<std::tuple<int, int, int, std::string>> seen;
  for (const auto& e : plan.layouts) seen.insert({e.layout.dp, e.layout.tp, e.layout.pp, e.scheme});
  for (const auto& s : plan.skipped) seen.insert({s.layout.dp, s.layout.tp, s.layout.pp, s.scheme});
  std::size_t expected = 0;
  for (const ParallelLayout& l : factorisations(128)) {
    const std::vector<std::string> schemes =
        l.tp == 1 ? std::vector<std::string>{"none"} : scheme_names();
    for (const std::string& s : schemes) {
      EXPECT_EQ(seen.count({l.dp, l.tp, l.pp, s}), 1u) << l.describe() << " " << s;
      ++expected;
    }
  }
  EXPECT_EQ(seen.size(), expected);
}

TEST(Plan, SkipsWhatCannotRunAndSaysWhy) {
  const ClusterPlan plan = plan_cluster(seeds_request());
  const auto reason = [&](ParallelLayout l, const std::string& scheme) {
    for (const auto& s : plan.skipped) {
      if (s.layout == l && s.scheme == scheme) return s.why;
    }
    return std::string("not skipped");
  };
  EXPECT_EQ(reason({1, 1, 128}, "none"), "PP 128 does not divide the 64 layers into equal stages");
  EXPECT_EQ(reason({128, 1, 1}, "none"), "not skipped") << "512 sequences over 128 replicas";
  EXPECT_NE(reason({8, 4, 4}, "2d").find("2D runs on a q x q mesh"), std::string::npos)
      << "a micro-batch of one sequence does not split over q = 2";
}

TEST(Plan, RefusesABatchNoLayoutDividesAndAClusterOfPartNodes) {
  PlanRequest r = paper_request();
  r.batch = {.global_batch = 5, .micro_batch = 2};
  EXPECT_THROW(plan_cluster(r), UsageError);
  r = seeds_request();
  r.devices = 100;  // 12.5 nodes of 8
  EXPECT_THROW(plan_cluster(r), UsageError);
  r.devices = 4;  // part of one node: fine
  EXPECT_NO_THROW(plan_cluster(r));
  r.model.layers = 0;
  EXPECT_THROW(plan_cluster(r), UsageError);
  r = seeds_request();
  r.efficiency = 0;
  EXPECT_THROW(plan_cluster(r), UsageError);
}

// ---- the seeds' 128-GPU cluster ----------------------------------------------------------------

TEST(SeedsCluster, DataParallelEightPipelineFourTensorFourIsBest) {
  // The article: "on a 128-GPU cluster, DP 8, PP 4, TP 4"; a 52-billion-parameter GPT on 16
  // DGX H100 nodes is one it fits.
  const ClusterPlan plan = plan_cluster(seeds_request());
  ASSERT_TRUE(plan.best.has_value());
  const LayoutEstimate& best = plan.layouts[*plan.best];
  EXPECT_EQ(best.layout, (ParallelLayout{8, 4, 4})) << best.layout.describe();
  EXPECT_EQ(best.scheme, "1d");
  EXPECT_TRUE(best.fits_memory);
  EXPECT_FALSE(best.tp_inter_node) << "TP 4 stays on one node's NVLink";
  EXPECT_TRUE(best.dp_group.crosses_nodes());
  EXPECT_EQ(best.micro_batches, 64);
  EXPECT_DOUBLE_EQ(best.bubble_fraction, 3.0 / 67.0);
  for (const LayoutEstimate& e : plan.layouts) {
    if (e.fits_memory) {
      EXPECT_GE(e.step_s(), best.step_s()) << e.layout.describe();
    }
  }
  // Faster on paper, but 52e9 parameters over 8 devices at 16 bytes each do not fit in 80 GB.
  const LayoutEstimate* wide_dp = nullptr;
  for (const LayoutEstimate& e : plan.layouts) {
    if (e.layout == ParallelLayout{16, 4, 2} && e.scheme == "1d") wide_dp = &e;
  }
  ASSERT_NE(wide_dp, nullptr);
  EXPECT_FALSE(wide_dp->fits_memory);
}

TEST(SeedsCluster, TensorParallelismBeyondANodeLoses) {
  const ClusterPlan plan = plan_cluster(seeds_request());
  const LayoutEstimate* within = fastest_at_tp(plan, 8);
  const LayoutEstimate* across = fastest_at_tp(plan, 16);
  ASSERT_NE(within, nullptr);
  ASSERT_NE(across, nullptr);
  EXPECT_FALSE(within->tp_inter_node);
  EXPECT_TRUE(across->tp_inter_node) << "TP 16 on nodes of 8";
  EXPECT_GT(across->step_s(), 3 * within->step_s());
  // The same layout on nodes of 16 keeps TP on the node's link: only the link made it slow.
  PlanRequest big_nodes = seeds_request();
  big_nodes.ranks_per_node = 16;
  const LayoutEstimate inside = estimate_layout(big_nodes, across->layout, across->scheme);
  EXPECT_FALSE(inside.tp_inter_node);
  EXPECT_DOUBLE_EQ(inside.tp_bus_bytes_per_block, across->tp_bus_bytes_per_block);
  EXPECT_GT(across->tp_comm_s, 5 * inside.tp_comm_s) << "50 GB/s against 450 GB/s";
}

}  // namespace
}  // namespace tplab::model::plan
