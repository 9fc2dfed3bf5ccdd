/// @file
/// Projection: the cost model's counts turned into seconds and bytes on one profile.
#include "projection.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "comm/collective.hpp"
#include "core/error.hpp"
#include "flops.hpp"
#include "mesh/mesh_layout.hpp"
#include "registry/make_scheme.hpp"
#include "scheme_costs.hpp"

namespace tplab::model {

Projection project(std::string_view scheme_name, const SchemeOptions& options, int gpus,
                   const BlockShape& shape, const HardwareProfile& profile, int ranks_per_node) {
  check(ranks_per_node >= 1, "project: a node holds at least one rank");
  if (gpus > ranks_per_node && !profile.inter_node) {
    throw UsageError(fmt::format(
        "hardware '{}' has no inter-node link, so every rank must be on one node of {}; {} "
        "are more: use --gpus up to {}, or a profile of a cluster such as dgx-h100",
        profile.name, ranks_per_node, gpus, ranks_per_node));
  }
  Projection p;
  p.scheme = std::string(scheme_name);
  p.gpus = gpus;
  p.ranks_per_node = ranks_per_node;
  p.nodes = node_count(gpus, ranks_per_node);
  const auto scheme = make_scheme(scheme_name, options);
  if (std::string why = scheme->shape_refusal(shape); !why.empty()) {
    p.why_not = std::move(why);
    return p;
  }
  if (const std::string why = scheme->why_not(gpus, shape); !why.empty()) {
    const std::vector<int> sizes = scheme->usable_world_sizes(shape, std::max(gpus, 64));
    p.why_not = fmt::format("{} {} devices", why, alternatives(sizes));
    return p;
  }
  const RankCost cost = rank_cost(scheme_name, options, gpus, shape, Workload::block);
  p.grid = cost.grid;
  for (const GroupLayout& layout : cost.groups) {
    p.groups.push_back(place_groups(layout, gpus, ranks_per_node));
  }
  // what recomputation does again is split as evenly as the forward it repeats
  p.flops = (block_step_flops(shape) + recompute_flops(shape, options.training.recompute)) / gpus;
  p.compute_s = p.flops / profile.matmul_flops_per_s;

  const int bytes = profile.bytes_per_element;
  p.bytes_per_element = bytes;
  for (const PredictedCollective& row : cost.comm.total().rows()) {
    TimedCollective t;
    t.row = row;
    const auto placement =
        std::find_if(p.groups.begin(), p.groups.end(),
                     [&](const GroupPlacement& g) { return g.name == row.group; });
    check(placement != p.groups.end(),
          fmt::format("the model of {} has no layout for its group '{}'", scheme_name, row.group));
    t.inter_node = placement->crosses_nodes();
    const Link& link = t.inter_node ? *profile.inter_node : profile.intra_node;
    t.time = collective_time(row, link.rate_of(row.collective), bytes);
    p.comm_latency_s += t.time.latency_s;
    p.comm_bandwidth_s += t.time.bandwidth_s;
    p.comm_elements += row.elements;
    p.comm_bus_bytes += row.bus_elements() * bytes;
    p.collectives.push_back(std::move(t));
  }

  p.weight_bytes = static_cast<double>(cost.parameter_elements) * bytes;
  p.recompute = options.training.recompute;
  p.activation_bytes = static_cast<double>(cost.activation_elements) * bytes;
  for (Recompute mode : {Recompute::none, Recompute::selective, Recompute::full}) {
    SchemeOptions recomputing = options;
    recomputing.training.recompute = mode;
    p.activation_bytes_by_recompute[static_cast<std::size_t>(mode)] =
        static_cast<double>(
            rank_cost(scheme_name, recomputing, gpus, shape, Workload::block).activation_elements) *
        bytes;
  }
  const auto korthikanti_bytes = cost_model_of(scheme_name).korthikanti_bytes;
  if (korthikanti_bytes != nullptr && bytes == 2) {  // one replica's block on its t ranks
    const MeshLayout mesh = mesh_of(options, gpus);
    p.korthikanti_bytes = korthikanti_bytes(replica_shape(shape, mesh.replicas), mesh.scheme_ranks,
                                            options.training.recompute);
  }
  p.fits_memory = p.weight_bytes + p.activation_bytes <= profile.memory_bytes;
  return p;
}

Projection project(std::string_view scheme_name, const SchemeOptions& options, int gpus,
                   const BlockShape& shape, const HardwareProfile& profile) {
  return project(scheme_name, options, gpus, shape, profile, profile.gpus_per_node);
}

std::vector<GroupTraffic> traffic_by_group(const Projection& p) {
  std::vector<GroupTraffic> traffic;
  for (const GroupPlacement& g : p.groups) {
    GroupTraffic t{.group = g.name, .inter_node = g.crosses_nodes()};
    for (const TimedCollective& c : p.collectives) {
      if (c.row.group != g.name) continue;
      t.bytes += static_cast<double>(c.row.elements) * p.bytes_per_element;
      t.seconds += c.time.latency_s + c.time.bandwidth_s;
    }
    traffic.push_back(t);
  }
  return traffic;
}

nlohmann::json to_json(const Projection& p) {
  nlohmann::json j = {{"scheme", p.scheme}, {"gpus", p.gpus}, {"fits", p.fits()}};
  if (!p.fits()) {
    j["why_not"] = p.why_not;
    return j;
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupPlacement& g : p.groups) {
    groups.push_back({{"group", g.name},
                      {"size", g.size},
                      {"groups", g.groups},
                      {"groups_across_nodes", g.groups_across_nodes},
                      {"fewest_nodes", g.fewest_nodes},
                      {"most_nodes", g.most_nodes},
                      {"inter_node", g.crosses_nodes()}});
  }
  nlohmann::json traffic = nlohmann::json::array();
  for (const GroupTraffic& t : traffic_by_group(p)) {
    traffic.push_back({{"group", t.group},
                       {"bytes", t.bytes},
                       {"seconds", t.seconds},
                       {"inter_node", t.inter_node}});
  }
  nlohmann::json collectives = nlohmann::json::array();
  for (const TimedCollective& t : p.collectives) {
    const Collective c = t.row.collective;
    collectives.push_back({{"collective", collective_name(c)},
                           {"op", reduces(c) ? nlohmann::json(reduce_op_name(t.row.op)) : nullptr},
                           {"root", rooted(c) ? nlohmann::json(t.row.root) : nullptr},
                           {"group", t.row.group},
                           {"group_size", t.row.group_size},
                           {"calls", t.row.calls},
                           {"elements", t.row.elements},
                           {"bus_elements", t.row.bus_elements()},
                           {"inter_node", t.inter_node},
                           {"latency_s", t.time.latency_s},
                           {"bandwidth_s", t.time.bandwidth_s}});
  }
  j.update({{"grid", p.grid},
            {"ranks_per_node", p.ranks_per_node},
            {"nodes", p.nodes},
            {"groups", groups},
            {"traffic_by_group", traffic},
            {"flops_per_device", p.flops},
            {"compute_s", p.compute_s},
            {"comm_s", p.comm_s()},
            {"comm_latency_s", p.comm_latency_s},
            {"comm_bandwidth_s", p.comm_bandwidth_s},
            {"comm_share", p.comm_share()},
            {"step_s", p.step_s()},
            {"comm_elements_per_device", p.comm_elements},
            {"comm_bus_bytes_per_device", p.comm_bus_bytes},
            {"weight_bytes", p.weight_bytes},
            {"activation_bytes", p.activation_bytes},
            {"recompute", recompute_name(p.recompute)},
            {"activation_bytes_by_recompute",
             {{"none", p.activation_bytes_by_recompute[0]},
              {"selective", p.activation_bytes_by_recompute[1]},
              {"full", p.activation_bytes_by_recompute[2]}}},
            {"fits_memory", p.fits_memory},
            {"collectives", collectives}});
  if (p.korthikanti_bytes) j["activation_bytes_korthikanti"] = *p.korthikanti_bytes;
  return j;
}

}  // namespace tplab::model
