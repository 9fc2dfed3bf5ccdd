/// @file
/// Projection: one scheme on a number of devices of a hardware profile: the grid, the time of
/// one block's step and its memory, per device.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alpha_beta.hpp"
#include "hardware.hpp"
#include "node_layout.hpp"
#include "rank_cost.hpp"

namespace tplab::model {

/// One collective on one group over a step (forward + backward), and its time.
struct TimedCollective {
  /// The collective, its group and its counts over the step.
  PredictedCollective row;
  bool inter_node = false;  ///< some group of this name spans two nodes
  /// Its alpha-beta time on the link it crosses.
  CollectiveTime time;
};

/// What one scheme costs on `gpus` devices, per device, for one block's forward + backward.
/// The model: time = compute + communication, with no overlap (tplab's layers wait for every
/// collective); compute = FLOPs / the profile's rate (every scheme splits each product evenly,
/// so a device does 1/p of block_step_flops, and of recompute_flops under the options'
/// recomputation); communication = the alpha-beta time of every
/// collective the model predicts, on the inter-node link when its group spans nodes.
struct Projection {
  std::string scheme;      ///< "1d", "2d", ...
  int gpus = 0;            ///< devices, one rank each
  int ranks_per_node = 1;  ///< ranks fill nodes in order, this many each
  int nodes = 1;           ///< the nodes the ranks fill
  std::string grid;        ///< as Scheme::describe_grid says it; empty when none fits
  std::string why_not;     ///< when no grid fits: the broken rule and the counts that would work

  /// The grid's groups of more than one rank, and the nodes they span.
  std::vector<GroupPlacement> groups;
  double flops = 0;                          ///< per device
  double compute_s = 0;                      ///< flops / the profile's rate
  std::vector<TimedCollective> collectives;  ///< forward + backward per collective and group
  double comm_latency_s = 0;                 ///< the alpha terms of every collective
  double comm_bandwidth_s = 0;               ///< the bandwidth terms of every collective
  std::int64_t comm_elements = 0;            ///< N summed over the step's calls
  int bytes_per_element = 2;                 ///< the profile's element size
  double comm_bus_bytes = 0;                 ///< what crosses each device's link

  Recompute recompute = Recompute::none;  ///< the options' recomputation
  double weight_bytes = 0;                ///< the block's parameters held by one device
  /// What the block keeps for backward (RankCost's count) under the options' recomputation.
  double activation_bytes = 0;
  /// The same under each recomputation: none, selective, full.
  std::array<double, 3> activation_bytes_by_recompute{};
  /// Korthikanti et al.'s formula (16-bit, 1-byte dropout masks) under the options'
  /// recomputation, for 1D and 1d-sp on 2-byte profiles.
  std::optional<double> korthikanti_bytes;
  bool fits_memory = false;  ///< weights + activations within the device's memory

  /// Whether the scheme has a grid for these devices.
  bool fits() const { return why_not.empty(); }
  /// Communication time: latency plus bandwidth terms.
  double comm_s() const { return comm_latency_s + comm_bandwidth_s; }
  /// Step time: compute plus communication (no overlap).
  double step_s() const { return compute_s + comm_s(); }
  /// The share of the step spent communicating, comm_s() / step_s().
  double comm_share() const { return step_s() > 0 ? comm_s() / step_s() : 0; }
};

/// One group name's share of a projection's communication, per device and step.
struct GroupTraffic {
  std::string group;        ///< "tp", "row", "dp", ...
  double bytes = 0;         ///< logical bytes (N) of its calls
  double seconds = 0;       ///< their alpha-beta time
  bool inter_node = false;  ///< some group of this name spans two nodes
};

/// The communication of `p` by group, in the order of p.groups.
std::vector<GroupTraffic> traffic_by_group(const Projection& p);

/// The projection of `scheme` on `gpus` devices of `profile`, `ranks_per_node` of them on each
/// node: a collective whose groups all lie within a node runs on the intra-node link, one with
/// a group across nodes on the inter-node link. A scheme that cannot split `shape` over `gpus`
/// gives a Projection whose why_not says why. Throws UsageError when the ranks fill more than
/// one node and the profile has no inter-node link.
Projection project(std::string_view scheme, const SchemeOptions& options, int gpus,
                   const BlockShape& shape, const HardwareProfile& profile, int ranks_per_node);

/// The same with nodes of the profile's size, profile.gpus_per_node ranks each.
Projection project(std::string_view scheme, const SchemeOptions& options, int gpus,
                   const BlockShape& shape, const HardwareProfile& profile);

/// The projection as model's --json writes it: its grid, nodes and groups, times, traffic,
/// memory and every collective; only "why_not" for a projection with no grid.
nlohmann::json to_json(const Projection& p);

}  // namespace tplab::model
