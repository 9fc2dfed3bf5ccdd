/// @file
/// LayoutEstimate: one DP x TP x PP layout with one TP scheme, priced: memory per device and the
/// time of one optimizer step, from the cost model's per-block formulas (model::rank_cost) and
/// the pipeline and data-parallel models beside them.
///
/// Per micro-batch, the slowest pipeline stage takes
///   stage = FLOPs / (peak x efficiency)                       its L/p blocks (+ the LM head on
///                                                             the last stage), split over tp
///         + L/p x the scheme's collectives of one block       alpha-beta, intra- or inter-node
///         + 2 x point-to-point send of b s h / tp elements    forward activation, backward grad
/// and one step (m = B / (dp b) micro-batches per replica) takes
///   step  = (m + p - 1) x stage          1F1B: m micro-batches plus the (p - 1)-stage bubble
///         + the gradient all-reduce over dp  after the last backward, not overlapped
/// Nothing overlaps communication with computation, as in tplab's layers without --overlap.
/// The LM head's own collectives (the vocab-parallel cross-entropy's few values per token) and
/// the tied embedding's gradient all-reduce between the first and last stage are left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "node_layout.hpp"
#include "plan/parallel_layout.hpp"
#include "plan/plan_request.hpp"
#include "plan/training_memory.hpp"

namespace tplab::model::plan {

/// A layout's price: memory of its fullest device and the parts of one step's time.
struct LayoutEstimate {
  ParallelLayout layout;  ///< DP x TP x PP
  std::string scheme;     ///< the TP scheme, a registry name; "none" at TP 1
  std::string grid;       ///< the scheme's grid, as Scheme::describe_grid says it; "" at TP 1
  std::int64_t micro_batches = 0;     ///< m = B / (dp b) per replica and step
  std::int64_t layers_per_stage = 0;  ///< L / p

  DeviceMemory memory;       ///< of the device that holds the most (first or last stage)
  int memory_stage = 0;      ///< the stage of that device (0 first)
  bool fits_memory = false;  ///< memory.total() within the device's memory

  /// The step's time, per part, in seconds; they add up to step_s().
  ///@{
  double compute_s = 0;  ///< m x the slowest stage's FLOPs / (peak x efficiency)
  double tp_comm_s = 0;  ///< m x its blocks' TP collectives
  double p2p_s = 0;      ///< m x its two point-to-point transfers
  double bubble_s = 0;   ///< (p - 1) x the stage's time: idle in the 1F1B warm-up and cool-down
  double dp_comm_s = 0;  ///< the gradient all-reduce
  ///@}
  double bubble_fraction = 0;  ///< (p - 1) / (m + p - 1)
  double model_flops = 0;      ///< model FLOPs of one step over the cluster
  /// Model FLOPs utilisation: model_flops / (step_s() x devices x peak FLOP rate).
  double mfu = 0;
  double tokens_per_s = 0;  ///< B s / step_s()

  /// Where the scheme's TP groups, the pipelines and the DP groups sit on the nodes.
  std::vector<GroupPlacement> tp_groups;
  GroupPlacement pp_group;            ///< the pipelines ("pp")
  GroupPlacement dp_group;            ///< the data-parallel groups ("dp")
  bool tp_inter_node = false;         ///< some TP collective runs on the inter-node link
  double tp_bus_bytes_per_block = 0;  ///< what one block's TP collectives put on a device's link
  double dp_bus_bytes = 0;            ///< what the gradient all-reduce puts on a device's link

  /// The step: compute, communication and the bubble.
  double step_s() const { return compute_s + tp_comm_s + p2p_s + bubble_s + dp_comm_s; }
  /// TP, point-to-point and DP communication.
  double comm_s() const { return tp_comm_s + p2p_s + dp_comm_s; }
  /// comm_s() / step_s().
  double comm_share() const { return step_s() > 0 ? comm_s() / step_s() : 0; }
};

/// Empty when `scheme` can run `layout` for `request`; otherwise why not, as a sentence: the
/// layers do not split into pp stages, the global batch not into dp x micro-batch, or the
/// scheme cannot split the micro-batch's block over tp devices (and which tp would do).
std::string why_layout_cannot_run(const PlanRequest& request, const ParallelLayout& layout,
                                  const std::string& scheme);

/// The price of `layout` with `scheme` (ignored at TP 1) for `request`, which it can run.
LayoutEstimate estimate_layout(const PlanRequest& request, const ParallelLayout& layout,
                               const std::string& scheme);

}  // namespace tplab::model::plan
