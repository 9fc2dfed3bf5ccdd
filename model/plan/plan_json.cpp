/// @file
/// A plan as JSON.
#include "plan/plan_json.hpp"

namespace tplab::model::plan {
namespace {

nlohmann::json layout_json(const ParallelLayout& l) {
  return {{"dp", l.dp}, {"tp", l.tp}, {"pp", l.pp}};
}

nlohmann::json placement_json(const GroupPlacement& g) {
  return {{"group", g.name},
          {"size", g.size},
          {"groups_across_nodes", g.groups_across_nodes},
          {"most_nodes", g.most_nodes},
          {"inter_node", g.crosses_nodes()}};
}

nlohmann::json estimate_json(const LayoutEstimate& e) {
  nlohmann::json tp_groups = nlohmann::json::array();
  for (const GroupPlacement& g : e.tp_groups) tp_groups.push_back(placement_json(g));
  nlohmann::json j = layout_json(e.layout);
  j.update({{"scheme", e.scheme},
            {"grid", e.grid},
            {"micro_batches", e.micro_batches},
            {"layers_per_stage", e.layers_per_stage},
            {"memory",
             {{"weights", e.memory.weights},
              {"gradients", e.memory.gradients},
              {"optimizer", e.memory.optimizer},
              {"activations", e.memory.activations},
              {"total", e.memory.total()},
              {"stage", e.memory_stage}}},
            {"fits_memory", e.fits_memory},
            {"compute_s", e.compute_s},
            {"tp_comm_s", e.tp_comm_s},
            {"p2p_s", e.p2p_s},
            {"bubble_s", e.bubble_s},
            {"dp_comm_s", e.dp_comm_s},
            {"step_s", e.step_s()},
            {"comm_share", e.comm_share()},
            {"bubble_fraction", e.bubble_fraction},
            {"mfu", e.mfu},
            {"tokens_per_s", e.tokens_per_s},
            {"tp_inter_node", e.tp_inter_node},
            {"tp_bus_bytes_per_block", e.tp_bus_bytes_per_block},
            {"dp_bus_bytes", e.dp_bus_bytes},
            {"tp_groups", tp_groups},
            {"pp_group", placement_json(e.pp_group)},
            {"dp_group", placement_json(e.dp_group)}});
  return j;
}

nlohmann::json request_json(const PlanRequest& r) {
  const GptModel& g = r.model;
  return {{"model",
           {{"layers", g.layers},
            {"hidden", g.hidden},
            {"heads", g.heads},
            {"seq", g.seq},
            {"vocab", g.vocab},
            {"parameters", model_parameters(g)}}},
          {"batch", {{"global_batch", r.batch.global_batch}, {"micro_batch", r.batch.micro_batch}}},
          {"pipeline",
           {{"schedule", schedule_name(r.schedule)},
            {"only_pp", r.only_pp == 0 ? nlohmann::json() : nlohmann::json(r.only_pp)},
            {"only_dp", r.only_dp == 0 ? nlohmann::json() : nlohmann::json(r.only_dp)}}},
          {"cluster",
           {{"hardware", r.hardware.name},
            {"devices", r.devices},
            {"ranks_per_node", r.ranks_per_node},
            {"memory_bytes", r.memory_bytes},
            {"matmul_flops_per_s", r.hardware.matmul_flops_per_s},
            {"rank_order", rank_order_name(r.order)}}},
          {"assumptions",
           {{"efficiency", r.efficiency},
            {"bytes_per_element", r.hardware.bytes_per_element},
            {"adam_state_bytes_per_parameter", kAdamStateBytesPerParameter},
            {"schedule", "1F1B"},
            {"overlap", false},
            {"recompute", recompute_name(r.scheme_options.training.recompute)}}}};
}

}  // namespace

nlohmann::json plan_json(const PlanRequest& request, const ClusterPlan& plan) {
  nlohmann::json layouts = nlohmann::json::array();
  for (const LayoutEstimate& e : plan.layouts) layouts.push_back(estimate_json(e));
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedLayout& s : plan.skipped) {
    nlohmann::json j = layout_json(s.layout);
    j.update({{"scheme", s.scheme}, {"why", s.why}});
    skipped.push_back(j);
  }
  nlohmann::json j = request_json(request);
  j["layouts"] = layouts;
  j["skipped"] = skipped;
  j["best"] = plan.best ? nlohmann::json(*plan.best) : nlohmann::json(nullptr);
  return j;
}

}  // namespace tplab::model::plan
