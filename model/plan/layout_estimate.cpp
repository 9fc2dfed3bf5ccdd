/// @file
/// One layout priced: its blocks' TP collectives placed on the nodes, its first and last
/// pipeline stages' memory and time, the bubble and the gradient all-reduce.
#include "plan/layout_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "alpha_beta.hpp"
#include "core/error.hpp"
#include "flops.hpp"
#include "gpt_activations.hpp"
#include "plan/data_parallel_sync.hpp"
#include "plan/pipeline_schedule.hpp"
#include "registry/make_scheme.hpp"

namespace tplab::model::plan {
namespace {

const Link& link_of(const HardwareProfile& hardware, bool inter_node) {
  return inter_node ? *hardware.inter_node : hardware.intra_node;
}

/// One block of one micro-batch on one device: the scheme's cost, and its collectives' time
/// with each kind of group on the link its groups need in the whole world.
struct BlockOnDevice {
  RankCost cost;
  /// What one block computes again in backward and holds while it walks back through it (the
  /// elements Recompute::none would have kept and the request's mode does not): one block's
  /// worth at a time, beside every block's kept elements.
  std::int64_t recomputed_elements = 0;
  double flops = 0;  ///< 1/tp of the block's forward + backward, and of what it recomputes
  double comm_s = 0;
  double bus_bytes = 0;
  bool inter_node = false;
  std::vector<GroupPlacement> groups;
};

/// The scheme that runs a layout's TP groups: `scheme`, or 1d (a rank alone) at TP 1.
std::string scheme_of(const ParallelLayout& layout, const std::string& scheme) {
  return layout.tp == 1 ? "1d" : scheme;
}

BlockOnDevice block_on_device(const PlanRequest& r, const ParallelLayout& layout,
                              const std::string& scheme) {
  const BlockShape shape = block_shape_of(r.model, r.batch.micro_batch);
  BlockOnDevice block;
  const std::string name = scheme_of(layout, scheme);
  block.cost = rank_cost(name, r.scheme_options, layout.tp, shape, Workload::block);
  SchemeOptions keeping = r.scheme_options;
  keeping.training.recompute = Recompute::none;
  block.recomputed_elements =
      rank_cost(name, keeping, layout.tp, shape, Workload::block).activation_elements -
      block.cost.activation_elements;
  const Recompute mode = r.scheme_options.training.recompute;
  block.flops = (block_step_flops(shape) + recompute_flops(shape, mode)) / layout.tp;
  for (const GroupLayout& inner : block.cost.groups) {
    block.groups.push_back(place_groups(within_tensor_parallel_groups(layout, inner),
                                        layout.devices(), r.ranks_per_node));
  }
  const int bytes = r.hardware.bytes_per_element;
  for (const PredictedCollective& row : block.cost.comm.total().rows()) {
    const auto placement =
        std::find_if(block.groups.begin(), block.groups.end(),
                     [&](const GroupPlacement& g) { return g.name == row.group; });
    check(placement != block.groups.end(),
          fmt::format("the model of {} has no layout for its group '{}'", scheme, row.group));
    const bool inter_node = placement->crosses_nodes();
    block.inter_node = block.inter_node || inter_node;
    const LinkRate& rate = link_of(r.hardware, inter_node).rate_of(row.collective);
    block.comm_s += collective_time(row, rate, bytes).total_s();
    block.bus_bytes += row.bus_elements() * bytes;
  }
  return block;
}

/// What one device of pipeline stage `stage` holds, and does per micro-batch.
struct StageWork {
  int stage = 0;
  std::int64_t parameters = 0;
  std::int64_t activation_elements = 0;
  double flops = 0;
  double tp_comm_s = 0;
};

/// What the last stage keeps for backward around its blocks, one micro-batch: the final
/// LayerNorm's, the LM head's input, the logits and the loss's, as the scheme's GPT layout keeps
/// them on tp ranks (gpt_parts_kept_elements, which `train` measures), the vocabulary padded to
/// a multiple of tp.
std::int64_t head_kept_elements(const PlanRequest& r, const ParallelLayout& l,
                                const std::string& scheme) {
  const gpt::GptShape shape{block_shape_of(r.model, r.batch.micro_batch),
                            (r.model.vocab + l.tp - 1) / l.tp * l.tp, r.model.layers / l.pp};
  return gpt_parts_kept_elements(scheme_of(l, scheme), r.scheme_options, l.tp, shape);
}

/// The stage's L/p blocks; the first stage also holds the embeddings, the last the final
/// LayerNorm and the LM head (tied to the token embedding: a copy of it when p > 1), split over
/// the vocabulary as Megatron's VocabParallelEmbedding splits it (V padded to a multiple of tp),
/// and what they keep for backward (`head_kept`).
StageWork stage_work(const PlanRequest& r, const ParallelLayout& l, const BlockOnDevice& block,
                     int stage, std::int64_t micro_batches, std::int64_t head_kept) {
  const GptModel& g = r.model;
  const std::int64_t layers = g.layers / l.pp, tokens = r.batch.micro_batch * g.seq;
  const std::int64_t vocab_shard = (g.vocab + l.tp - 1) / l.tp;
  StageWork w;
  w.stage = stage;
  w.parameters = layers * block.cost.parameter_elements;
  w.activation_elements = layers * block.cost.activation_elements *
                              micro_batches_in_flight(stage, l.pp, micro_batches, r.schedule) +
                          block.recomputed_elements;
  w.flops = static_cast<double>(layers) * block.flops;
  w.tp_comm_s = static_cast<double>(layers) * block.comm_s;
  if (stage == 0) w.parameters += vocab_shard * g.hidden + g.seq * g.hidden;
  if (stage == l.pp - 1) {
    w.parameters += 2 * g.hidden + (l.pp > 1 ? vocab_shard * g.hidden : 0);
    w.activation_elements += head_kept;
    w.flops += 6.0 * static_cast<double>(tokens * g.hidden * vocab_shard);
  }
  return w;
}

/// Memory of the fullest of `stages`' devices.
void price_memory(const PlanRequest& r, const std::vector<StageWork>& stages, LayoutEstimate& e) {
  for (const StageWork& w : stages) {
    const DeviceMemory memory =
        device_memory(w.parameters, w.activation_elements, r.hardware.bytes_per_element);
    if (w.stage == stages.front().stage || memory.total() > e.memory.total()) {
      e.memory = memory;
      e.memory_stage = w.stage;
    }
  }
  e.fits_memory = e.memory.total() <= r.memory_bytes;
}

/// One point-to-point transfer between neighbouring stages, on the pipelines' link.
double point_to_point_s(const PlanRequest& r, const LayoutEstimate& e) {
  if (e.layout.pp == 1) return 0;
  const LinkRate& rate = link_of(r.hardware, e.pp_group.crosses_nodes()).rate;
  const std::int64_t elements =
      stage_boundary_elements(r.batch.micro_batch * r.model.seq, r.model.hidden, e.layout.tp);
  return rate.latency_s +
         static_cast<double>(elements) * r.hardware.bytes_per_element / rate.bandwidth_bytes_per_s;
}

/// The step's time: the slowest stage through 1F1B, then the gradient all-reduce of the device
/// with the most parameters (every stage's DP groups run at once; the largest ends last).
void price_time(const PlanRequest& r, const std::vector<StageWork>& stages, LayoutEstimate& e) {
  const double rate = r.hardware.matmul_flops_per_s * r.efficiency;
  const double p2p_s = 2 * point_to_point_s(r, e);  // forward activations, backward gradients
  double slowest_s = -1;
  std::int64_t most_parameters = 0;
  for (const StageWork& w : stages) {
    most_parameters = std::max(most_parameters, w.parameters);
    const double stage_s = w.flops / rate + w.tp_comm_s + p2p_s;
    if (stage_s <= slowest_s) continue;
    slowest_s = stage_s;
    const double m = static_cast<double>(e.micro_batches);
    e.compute_s = m * w.flops / rate;
    e.tp_comm_s = m * w.tp_comm_s;
    e.p2p_s = m * p2p_s;
  }
  e.bubble_s = pipeline_time_s(slowest_s, e.layout.pp, e.micro_batches) -
               static_cast<double>(e.micro_batches) * slowest_s;
  e.bubble_fraction = bubble_fraction(e.layout.pp, e.micro_batches);
  const PredictedCollective sync = gradient_all_reduce(most_parameters, e.layout.dp);
  const LinkRate& dp_rate =
      link_of(r.hardware, e.dp_group.crosses_nodes()).rate_of(Collective::all_reduce);
  e.dp_comm_s = collective_time(sync, dp_rate, r.hardware.bytes_per_element).total_s();
  e.dp_bus_bytes = sync.bus_elements() * r.hardware.bytes_per_element;
}

}  // namespace

std::string why_layout_cannot_run(const PlanRequest& r, const ParallelLayout& layout,
                                  const std::string& scheme) {
  if (r.model.layers % layout.pp != 0) {
    return fmt::format("PP {} does not divide the {} layers into equal stages", layout.pp,
                       r.model.layers);
  }
  if (r.batch.global_batch % (static_cast<std::int64_t>(layout.dp) * r.batch.micro_batch) != 0) {
    return fmt::format("DP {} x micro-batch {} does not divide the global batch of {} sequences",
                       layout.dp, r.batch.micro_batch, r.batch.global_batch);
  }
  if (layout.tp == 1) return {};
  const BlockShape shape = block_shape_of(r.model, r.batch.micro_batch);
  const auto made = make_scheme(scheme, r.scheme_options);
  const std::string why = made->why_not(layout.tp, shape);
  if (why.empty()) return {};
  return fmt::format("{} a TP degree of {}", why,
                     alternatives(made->usable_world_sizes(shape, layout.devices())));
}

LayoutEstimate estimate_layout(const PlanRequest& r, const ParallelLayout& layout,
                               const std::string& scheme) {
  LayoutEstimate e;
  e.layout = layout;
  e.micro_batches = r.batch.global_batch / (layout.dp * r.batch.micro_batch);
  e.layers_per_stage = r.model.layers / layout.pp;
  const BlockOnDevice block = block_on_device(r, layout, scheme);
  e.scheme = layout.tp == 1 ? "none" : scheme;  // 1d's formulas on one rank
  e.grid = layout.tp == 1 ? "" : block.cost.grid;
  e.tp_groups = block.groups;
  e.tp_inter_node = block.inter_node;
  e.tp_bus_bytes_per_block = block.bus_bytes;
  e.pp_group = place_groups(pipeline_groups(layout), layout.devices(), r.ranks_per_node);
  e.dp_group = place_groups(data_parallel_groups(layout), layout.devices(), r.ranks_per_node);

  const std::int64_t head_kept = head_kept_elements(r, layout, scheme);
  std::vector<StageWork> stages = {stage_work(r, layout, block, 0, e.micro_batches, head_kept)};
  if (layout.pp > 1) {
    stages.push_back(stage_work(r, layout, block, layout.pp - 1, e.micro_batches, head_kept));
  }
  price_memory(r, stages, e);
  price_time(r, stages, e);
  e.model_flops = model_step_flops(r.model, r.batch);
  e.mfu = e.model_flops / (e.step_s() * layout.devices() * r.hardware.matmul_flops_per_s);
  e.tokens_per_s = static_cast<double>(r.batch.global_batch * r.model.seq) / e.step_s();
  return e;
}

}  // namespace tplab::model::plan
