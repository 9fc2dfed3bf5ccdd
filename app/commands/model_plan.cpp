/// @file
/// `tplab model plan`: every DP x TP x PP layout of a cluster priced, the best named, and the
/// fastest at each TP degree beside it, to show where TP stops paying.
#include "model_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "choice.hpp"
#include "core/error.hpp"
#include "launch_options.hpp"
#include "mesh/mesh_layout.hpp"
#include "mesh_options.hpp"
#include "option_effects.hpp"
#include "plan/cluster_plan.hpp"
#include "plan/plan_json.hpp"
#include "plan_plot.hpp"
#include "problem_options.hpp"
#include "safe_output.hpp"
#include "scheme_choice.hpp"
#include "value_checks.hpp"

namespace tplab::app {
namespace {

using model::plan::ClusterPlan;
using model::plan::LayoutEstimate;
using model::plan::PlanRequest;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// The number `text` reads as, whole text, if it is one.
/// The device count of --gpus: 128 when not given, the seeds' cluster.
int plan_devices(const CLI::App& command, const ModelOptions& o) {
  if (command.count("--gpus") == 0) return 128;
  if (o.gpus.size() != 1) {
    throw UsageError(
        fmt::format("model plan plans one cluster: give one device count to --gpus, "
                    "not {}",
                    fmt::join(o.gpus, ",")));
  }
  return o.gpus.front();
}

PlanRequest plan_request(const CLI::App& command, const ModelOptions& o, const PlanOptions& p) {
  PlanRequest r;
  r.model = {.layers = p.layers,
             .hidden = o.hidden.value_or(8192),
             .heads = o.heads.value_or(64),
             .seq = o.seq.value_or(2048),
             .vocab = p.vocab};
  r.batch = {.global_batch = p.global_batch, .micro_batch = p.micro_batch};
  r.schedule = o.scheme.schedule;
  if (command.count("--pp") > 0) r.only_pp = o.scheme.pp;
  if (command.count("--dp") > 0) r.only_dp = o.scheme.dp;
  if (command.count("--micro-batches") > 0) {
    // m micro-batches per replica: b = B / (D m), which needs the replicas fixed
    const std::int64_t m = o.scheme.micro_batches, B = p.global_batch;
    if (command.count("--micro-batch") > 0) {
      throw UsageError(
          "give --micro-batch b (sequences per micro-batch) or --micro-batches m (micro-batches "
          "per replica), not both: m = B / (DP x b)");
    }
    if (r.only_dp == 0) {
      throw UsageError(fmt::format(
          "--micro-batches {} needs --dp D: a replica's micro-batch is b = B / (D x {}), and "
          "without D each layout's would differ; or give --micro-batch b",
          m, m));
    }
    if (B % (r.only_dp * m) != 0) {
      throw UsageError(fmt::format(
          "--global-batch {} is not divisible by --dp {} x --micro-batches {}: each of the {} "
          "micro-batches of a replica holds B / (D m) sequences",
          B, r.only_dp, m, m));
    }
    r.batch.micro_batch = B / (r.only_dp * m);
  }
  const auto profiles = model::available_profiles(o.hardware_file);
  r.hardware = model::find_profile(profiles, o.hardware.empty() ? "dgx-h100" : o.hardware);
  r.devices = plan_devices(command, o);
  r.ranks_per_node = o.ranks_per_node.value_or(r.hardware.gpus_per_node);
  r.memory_bytes = p.memory_gib ? *p.memory_gib * kGiB : r.hardware.memory_bytes;
  r.efficiency = p.efficiency;
  r.schemes = o.chosen_schemes();
  r.scheme_options = replica_options(o.scheme);  // the plan lays out DP and PP itself
  r.order = p.rank_order;
  return r;
}

std::string link_text(const model::Link& link) {
  return fmt::format("{:.0f} GB/s ({:.1f} us per step)", link.rate.bandwidth_bytes_per_s / 1e9,
                     link.rate.latency_s * 1e6);
}

void print_header(const PlanRequest& r) {
  const auto& g = r.model;
  const auto& hw = r.hardware;
  fmt::print(
      "tplab model plan: which DP x TP x PP for this model on this cluster\n"
      "  (a model at this size; tplab runs each axis at small size: the TP schemes, data "
      "parallelism and the GPipe and\n   1F1B pipelines, with tplab train --dp --pp, and times "
      "them with tplab bench step --dp --pp)\n");
  fmt::print(
      "  model     GPT: {} layers, h {}, {} heads, s {}, vocab {}: {:.2f} billion "
      "parameters\n",
      g.layers, g.hidden, g.heads, g.seq, g.vocab,
      static_cast<double>(model::plan::model_parameters(g)) / 1e9);
  fmt::print(
      "  batch     {} sequences ({} tokens) per step, micro-batches of {}: m = {} / (DP x "
      "{}) per replica\n",
      r.batch.global_batch, r.batch.global_batch * g.seq, r.batch.micro_batch, r.batch.global_batch,
      r.batch.micro_batch);
  if (r.only_dp > 0 || r.only_pp > 0) {
    fmt::print("  layouts   only those with {}{}{}\n",
               r.only_dp > 0 ? fmt::format("DP = {} (--dp)", r.only_dp) : "",
               r.only_dp > 0 && r.only_pp > 0 ? " and " : "",
               r.only_pp > 0 ? fmt::format("PP = {} (--pp)", r.only_pp) : "");
  }
  fmt::print("  hardware  {}: {}\n", hw.name, hw.description);
  fmt::print("            {:.4g} TFLOP/s peak x efficiency {} per device; {:.1f} GiB per device\n",
             hw.matmul_flops_per_s / 1e12, r.efficiency, r.memory_bytes / kGiB);
  fmt::print("            {} within a node", link_text(hw.intra_node));
  if (hw.inter_node) fmt::print(", {} between nodes", link_text(*hw.inter_node));
  const bool pp_next = r.order == model::plan::RankOrder::tp_pp_dp;
  fmt::print("\n  cluster   {} devices, {} per node; ranks in {} order: rank = tp + TP ({})\n",
             r.devices, r.ranks_per_node, model::plan::rank_order_name(r.order),
             pp_next ? "pp + PP dp" : "dp + DP pp");
  fmt::print(
      "            ({});\n            a group with ranks on two nodes runs at the inter-node "
      "rate\n",
      pp_next ? "Megatron's --use-tp-pp-dp-mapping; --rank-order tp-dp-pp for its default"
              : "Megatron-core's default; --rank-order tp-pp-dp for its other mapping");
  fmt::print(
      "  memory    the fullest device: {}-byte weights and gradients; Adam's fp32 master copy and "
      "two\n            moments, {} bytes per parameter; no ZeRO; activations as tplab's layers "
      "keep them,\n            {};\n            {}\n",
      hw.bytes_per_element, model::plan::kAdamStateBytesPerParameter,
      r.scheme_options.training.recompute == Recompute::none
          ? std::string("no recomputation (--recompute selective or full)")
          : fmt::format("--recompute {}, and one block's recomputed tensors while backward "
                        "walks through it; its FLOPs in the step",
                        recompute_name(r.scheme_options.training.recompute)),
      r.schedule == PipelineSchedule::gpipe
          ? "GPipe (--schedule gpipe): every stage keeps all m micro-batches in flight"
          : "1F1B: the first stage keeps min(PP, m) micro-batches in flight");
  fmt::print(
      "  time      per micro-batch, the slowest stage: FLOPs / (peak x efficiency) + the TP "
      "scheme's\n            collectives (alpha-beta) + 2 sends of b s h / TP to the next stage;\n"
      "            step = (m + PP - 1) stages + the DP gradient all-reduce (ring); nothing "
      "overlaps\n");
  fmt::print(
      "  nodes     the last columns: how many nodes one group of each kind spans; above 1 its "
      "collectives\n            run on the inter-node link\n\n");
}

void print_table_head() {
  fmt::print(
      "  {:>4} {:>4} {:>4} {:<6} {:<9} {:>4} | {:>7} {:>6} {:>6} {:>6} {:>6} | {:>8} "
      "{:>7} {:>6} {:>6} {:>7} {:>8} | {:>5} {:>6} {:>4} | {}\n",
      "DP", "TP", "PP", "scheme", "grid", "m", "weights", "grads", "optim", "activ", "total",
      "compute", "TP comm", "p2p", "bubble", "DP comm", "step", "comm", "bubble", "MFU",
      "nodes a group spans");
  fmt::print(
      "  {:>4} {:>4} {:>4} {:<6} {:<9} {:>4} | {:>7} {:>6} {:>6} {:>6} {:>6} | {:>8} "
      "{:>7} {:>6} {:>6} {:>7} {:>8} | {:>5} {:>6} {:>4} | {}\n",
      "", "", "", "", "", "", "GiB", "GiB", "GiB", "GiB", "GiB", "s", "s", "s", "s", "s", "s",
      "share", "share", "", "tp pp dp");
}

/// The most nodes any of the scheme's TP groups spans (1 at TP 1).
int tp_nodes(const LayoutEstimate& e) {
  int most = 1;
  for (const auto& g : e.tp_groups) most = std::max(most, g.most_nodes);
  return most;
}

void print_layout(const LayoutEstimate& e, const PlanRequest& r) {
  const auto& m = e.memory;
  std::string mark;
  if (!e.fits_memory) {
    mark = fmt::format("  exceeds the device's {:.1f} GiB", r.memory_bytes / kGiB);
  }
  fmt::print(
      "  {:>4} {:>4} {:>4} {:<6} {:<9} {:>4} | {:>7.1f} {:>6.1f} {:>6.1f} {:>6.1f} "
      "{:>6.1f} | {:>8.3f} {:>7.3f} {:>6.3f} {:>6.3f} {:>7.3f} {:>8.3f} | {:>4.0f}% "
      "{:>5.0f}% {:>3.0f}% | {:>2} {:>2} {:>2}{}\n",
      e.layout.dp, e.layout.tp, e.layout.pp, e.scheme, e.grid.empty() ? "-" : e.grid,
      e.micro_batches, m.weights / kGiB, m.gradients / kGiB, m.optimizer / kGiB,
      m.activations / kGiB, m.total() / kGiB, e.compute_s, e.tp_comm_s, e.p2p_s, e.bubble_s,
      e.dp_comm_s, e.step_s(), e.comm_share() * 100, e.bubble_fraction * 100, e.mfu * 100,
      tp_nodes(e), e.pp_group.most_nodes, e.dp_group.most_nodes, mark);
}

/// Every layout, fastest first: those that fit in memory, then those that do not.
void print_layouts(const ClusterPlan& plan, const PlanRequest& r) {
  std::vector<const LayoutEstimate*> order;
  for (const LayoutEstimate& e : plan.layouts) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    if (a->fits_memory != b->fits_memory) return a->fits_memory;
    return a->step_s() < b->step_s();
  });
  print_table_head();
  for (const LayoutEstimate* e : order) print_layout(*e, r);
}

/// The layouts left out, one line per reason (every one with --detail).
void print_skipped(const ClusterPlan& plan, bool detail) {
  if (plan.skipped.empty()) return;
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& s : plan.skipped) {
    by_reason[s.why].push_back(s.scheme == "none" ? s.layout.describe()
                                                  : s.layout.describe() + " " + s.scheme);
  }
  fmt::print("\n  {} layouts left out:\n", plan.skipped.size());
  for (const auto& [why, layouts] : by_reason) {
    if (detail) {
      fmt::print("    {}: {}\n", why, fmt::join(layouts, "; "));
    } else {
      fmt::print("    {} ({} layout{})\n", why, layouts.size(), layouts.size() == 1 ? "" : "s");
    }
  }
}

/// Where the TP groups of `e` run: "within a node" or "across 2 nodes at 50 GB/s".
std::string tp_link_text(const LayoutEstimate& e, const PlanRequest& r) {
  if (e.layout.tp == 1) return "no TP";
  const auto& hw = r.hardware;
  if (!e.tp_inter_node) {
    return fmt::format("within a node, {:.0f} GB/s",
                       hw.intra_node.rate.bandwidth_bytes_per_s / 1e9);
  }
  return fmt::format("across {} nodes, {:.0f} GB/s", tp_nodes(e),
                     hw.inter_node->rate.bandwidth_bytes_per_s / 1e9);
}

/// The step from the widest TP within a node to the narrowest across nodes, in numbers.
void print_node_boundary(const ClusterPlan& plan, const PlanRequest& r) {
  const LayoutEstimate* inside = nullptr;
  const LayoutEstimate* across = nullptr;
  for (int tp : model::plan::tp_degrees(plan)) {
    const LayoutEstimate* e = model::plan::fastest_at_tp(plan, tp);
    if (tp > 1 && !e->tp_inter_node) inside = e;
    if (e->tp_inter_node && across == nullptr) across = e;
  }
  if (inside == nullptr || across == nullptr) return;
  fmt::print(
      "  TP {} -> {}: the TP groups leave the node; a block's TP traffic per device goes from "
      "{:.3f} to {:.3f} GB,\n  but its link from {:.0f} to {:.0f} GB/s: TP communication "
      "{:.3f} -> {:.3f} s per step, the step {:.3f} -> {:.3f} s\n",
      inside->layout.tp, across->layout.tp, inside->tp_bus_bytes_per_block / 1e9,
      across->tp_bus_bytes_per_block / 1e9, r.hardware.intra_node.rate.bandwidth_bytes_per_s / 1e9,
      r.hardware.inter_node->rate.bandwidth_bytes_per_s / 1e9, inside->tp_comm_s, across->tp_comm_s,
      inside->step_s(), across->step_s());
}

/// The fastest layout at each TP degree: where TP stops paying, in numbers.
void print_by_tp_degree(const ClusterPlan& plan, const PlanRequest& r) {
  fmt::print(
      "\n  The fastest layout at each TP degree (a TP group of more than {} devices spans "
      "nodes)\n",
      r.ranks_per_node);
  fmt::print("  {:>4}  {:<21} {:<6} {:>8} {:>9} {:>8} {:>11} {:>5}  {:<27} {}\n", "TP", "layout",
             "scheme", "step s", "TP comm s", "TP share", "TP GB/block", "MFU", "TP groups",
             "memory");
  for (int tp : model::plan::tp_degrees(plan)) {
    const LayoutEstimate& e = *model::plan::fastest_at_tp(plan, tp);
    fmt::print("  {:>4}  {:<21} {:<6} {:>8.3f} {:>9.3f} {:>7.0f}% {:>11.3f} {:>4.0f}%  {:<27} {}\n",
               tp, e.layout.describe(), e.scheme, e.step_s(), e.tp_comm_s,
               e.tp_comm_s / e.step_s() * 100, e.tp_bus_bytes_per_block / 1e9, e.mfu * 100,
               tp_link_text(e, r),
               e.fits_memory ? fmt::format("{:.1f} GiB", e.memory.total() / kGiB)
                             : fmt::format("{:.1f} GiB, exceeds", e.memory.total() / kGiB));
  }
  print_node_boundary(plan, r);
}

void print_best(const ClusterPlan& plan, const PlanRequest& r) {
  if (!plan.best) {
    fmt::print(
        "\n  best: none: no layout fits in {:.1f} GiB per device; try more devices, a "
        "smaller micro-batch, or a model with fewer parameters\n",
        r.memory_bytes / kGiB);
    return;
  }
  const LayoutEstimate& e = plan.layouts[*plan.best];
  fmt::print(
      "\n  best: {} with {}{}: {:.3f} s per step, {:.0f} tokens/s, MFU {:.0f}%, {:.0f}% "
      "communicating, {:.0f}% bubble; {:.1f} of {:.1f} GiB per device\n",
      e.layout.describe(), e.scheme, e.grid.empty() ? "" : " (" + e.grid + ")", e.step_s(),
      e.tokens_per_s, e.mfu * 100, e.comm_share() * 100, e.bubble_s / e.step_s() * 100,
      e.memory.total() / kGiB, r.memory_bytes / kGiB);
}

/// Runs `model plan` as `command` parsed it; returns the exit code (0), or throws UsageError for
/// input no plan can be made from.
int run_plan(const CLI::App& command, const ModelOptions& o, const PlanOptions& p) {
  if (o.json) require_writable_file(*o.json, "--json");
  if (p.plot) require_writable_file(*p.plot, "--plot");
  const PlanRequest request = plan_request(command, o, p);
  const ClusterPlan plan = model::plan::plan_cluster(request);
  // --schedule changes the layouts of several stages, which the plan holds unless --pp 1
  SchemeOptions priced = o.scheme;
  for (const LayoutEstimate& e : plan.layouts) priced.pp = std::max(priced.pp, e.layout.pp);
  refuse_without_effect(command, runs_of(request.schemes, priced));
  print_header(request);
  print_layouts(plan, request);
  print_skipped(plan, o.detail);
  print_by_tp_degree(plan, request);
  print_best(plan, request);
  const nlohmann::json document = model::plan::plan_json(request, plan);
  if (o.json) write_file_safely(*o.json, document.dump(2) + "\n", "--json");
  if (p.plot) {
    draw_plan_plot(document, *p.plot);
    fmt::print("wrote the plot to {}\n", *p.plot);
  }
  return 0;
}

}  // namespace

void add_model_plan_command(CLI::App& model, int& exit_code) {
  auto o = std::make_shared<ModelOptions>();
  auto p = std::make_shared<PlanOptions>();
  CLI::App* cmd = model.add_subcommand(
      "plan",
      "Plan a cluster: every DP x TP x PP of --gpus N (default 128) for a whole GPT, with "
      "memory, step time, MFU and the best layout; --dp and --pp keep the layouts of those "
      "degrees, --micro-batches m sets b = B / (D m), --schedule what a stage keeps");
  add_scheme_option(*cmd, o->schemes);
  add_dimension_options(*cmd, *o, false);
  add_gpus_option(*cmd, o->gpus, "the cluster's device count (default: 128)");
  add_hardware_options(*cmd, *o, "dgx-h100", true);
  add_depth_option(*cmd, o->scheme);
  add_recompute_option(*cmd, o->scheme.training);
  add_dp_option(*cmd, o->scheme)
      ->description("only the layouts of D data-parallel replicas (the plan tries every D)");
  add_pipeline_options(*cmd, o->scheme);
  cmd->get_option("--pp")->description(
      "only the layouts of S pipeline stages (the plan tries every S that divides --layers)");
  cmd->get_option("--micro-batches")
      ->description("m micro-batches per replica, with --dp D: b = B / (D m) sequences each");
  add_detail_option(*cmd, *o, "every layout left out, with the rule it breaks");
  add_json_option(*cmd, o->json, "the plan");
  add_gpt_size_options(*cmd, p->vocab, p->layers);
  cmd->add_option("--global-batch", p->global_batch, "B, sequences per step")
      ->check(positive_count_check())
      ->capture_default_str();
  cmd->add_option("--micro-batch", p->micro_batch, "b, sequences per micro-batch of one replica")
      ->check(positive_count_check())
      ->capture_default_str();
  cmd->add_option("--efficiency", p->efficiency,
                  "the share of the peak FLOP rate the matmuls reach, in (0, 1]")
      ->check(share_check())
      ->capture_default_str();
  cmd->add_option("--memory-gib", p->memory_gib,
                  "memory per device in GiB (default: the profile's)")
      ->check(positive_number_check());
  add_choice(*cmd, "--rank-order", p->rank_order, model::plan::kRankOrderNames,
             "how ranks number the axes after TP, tp-pp-dp or tp-dp-pp");
  cmd->add_option("--plot", p->plot,
                  "draw step time and memory against the TP degree into this PNG (python3 and "
                  "matplotlib, as tplab report)");
  cmd->callback([o, p, cmd, &exit_code] { exit_code = run_plan(*cmd, *o, *p); });
}

}  // namespace tplab::app
