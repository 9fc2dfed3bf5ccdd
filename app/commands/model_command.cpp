/// @file
/// `tplab model`: what each scheme costs on a hardware profile, from a handful of GPUs to
/// thousands; its subcommands plan a cluster (plan) and set the model against this machine
/// (calibrate, compare).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "block_training_options.hpp"
#include "choice.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "flops.hpp"
#include "hardware.hpp"
#include "launch_options.hpp"
#include "launch_preflight.hpp"
#include "mesh_options.hpp"
#include "model_options.hpp"
#include "model_plan.hpp"
#include "option_effects.hpp"
#include "problem_options.hpp"
#include "projection.hpp"
#include "registry/scheme_registry.hpp"
#include "safe_output.hpp"
#include "scheme_choice.hpp"
#include "value_checks.hpp"

namespace tplab::app {

// ---- options -----------------------------------------------------------------------------------

std::vector<std::string> ModelOptions::chosen_schemes() const {
  return tplab::chosen_schemes(schemes);
}

bool ModelOptions::named_schemes() const {
  return names_schemes(schemes);
}

BlockShape ModelOptions::block_shape(const BlockShape& fallback) const {
  const std::pair<const char*, const std::optional<std::int64_t>*> parts[] = {
      {"--batch", &batch}, {"--seq", &seq}, {"--hidden", &hidden}, {"--heads", &heads}};
  std::vector<std::string> missing;
  for (const auto& [name, value] : parts) {
    if (!value->has_value()) {
      missing.push_back(name);
    } else if (**value <= 0) {
      throw UsageError(fmt::format("{} {}: give a positive integer", name, **value));
    }
  }
  const bool any = missing.size() < 4;
  if (shape) {
    if (any) {
      throw UsageError(
          "give the shape once: either --shape b,s,h,heads or --batch, --seq, --hidden and "
          "--heads");
    }
    return *shape;
  }
  if (!any) return global_shape(std::nullopt, fallback, scheme);
  if (!missing.empty()) {
    throw UsageError(fmt::format(
        "give all four of --batch, --seq, --hidden and --heads, such as --batch 8 --seq 2048 "
        "--hidden 8192 --heads 64; missing {}",
        fmt::join(missing, ", ")));
  }
  if (*hidden % *heads != 0) {
    throw UsageError(fmt::format("--hidden {} is not divisible by --heads {}", *hidden, *heads));
  }
  return {*batch, *seq, *hidden, *heads};
}

namespace {

/// The projection's default: a GPT block of hidden 8192 with 64 heads, 8 sequences of 2048
/// (for each replica).
constexpr BlockShape kProjectionShape{8, 2048, 8192, 64};

void require_positive(const std::vector<int>& counts, const char* option) {
  if (counts.empty()) throw UsageError(fmt::format("{} needs at least one count", option));
  for (int n : counts) {
    if (n < 1) {
      throw UsageError(
          fmt::format("{} {}: a device count is a positive integer, such as 8", option, n));
    }
  }
}

/// The ranks per node of --ranks-per-node, else the profile's devices per node.
int ranks_per_node(const ModelOptions& o, const model::HardwareProfile& hw) {
  return o.ranks_per_node.value_or(hw.gpus_per_node);
}

double gib(double bytes) {
  return bytes / (1024.0 * 1024.0 * 1024.0);
}

std::string rate_text(const model::Link& link) {
  return fmt::format("{:.0f} GB/s ({:.1f} us per step)", link.rate.bandwidth_bytes_per_s / 1e9,
                     link.rate.latency_s * 1e6);
}

void print_header(const BlockShape& shape, const model::HardwareProfile& hw,
                  const ModelOptions& o) {
  fmt::print("tplab model: one pre-LN block, forward + backward, per device\n");
  fmt::print("  shape     {} (m = b s = {} tokens): {:.3g} TFLOP per step\n", to_string(shape),
             shape.tokens(), model::block_step_flops(shape) / 1e12);
  fmt::print("  hardware  {}: {}\n", hw.name, hw.description);
  fmt::print("            {:.4g} TFLOP/s per device; per device and direction: {} within a node",
             hw.matmul_flops_per_s / 1e12, rate_text(hw.intra_node));
  if (hw.inter_node) fmt::print(", {} between nodes", rate_text(*hw.inter_node));
  fmt::print("; {}-byte elements; {:.0f} GB per device\n", hw.bytes_per_element,
             hw.memory_bytes / 1e9);
  const int per_node = ranks_per_node(o, hw);
  fmt::print(
      "  nodes     {} ranks per node ({}), filled in order: rank r is on node r / {}; a "
      "collective whose group has ranks on two nodes runs at the inter-node rate\n",
      per_node, o.ranks_per_node ? "--ranks-per-node" : "the profile's, or --ranks-per-node N",
      per_node);
  fmt::print(
      "  time      FLOPs / rate + per collective (calls x ring steps x latency + N x bus "
      "factor x bytes / bandwidth); no overlap\n");
  fmt::print(
      "  memory    the block's weights and the activations it keeps for backward with each "
      "--recompute (none keeps every tensor backward reads, selective not the attention "
      "probabilities, full the block's input alone); * marks --recompute {}, which the step's "
      "FLOPs and what fits count (1D and 1d-sp: also Korthikanti et al.'s Table 2 for it)\n\n",
      recompute_name(o.scheme.training.recompute));
  fmt::print("  {:>5} {:<6} {:<9} {:>10} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
             "gpus", "scheme", "grid", "compute ms", "comm ms", "latency", "bandwidth", "comm",
             "step ms", "weights", "act none", "selective", "full");
  fmt::print("  {:>5} {:<6} {:<9} {:>10} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
             "", "", "", "", "", "ms", "ms", "share", "", "GiB", "GiB", "GiB", "GiB");
}

/// Where the groups of one name sit: "column(4) across 2 nodes".
std::string placement_text(const model::GroupPlacement& g) {
  const std::string group = fmt::format("{}({})", g.name, g.size);
  if (!g.crosses_nodes()) return group + " within a node";
  if (g.groups_across_nodes < g.groups) {
    return fmt::format("{} across up to {} nodes ({} of {} groups cross)", group, g.most_nodes,
                       g.groups_across_nodes, g.groups);
  }
  if (g.fewest_nodes < g.most_nodes) {
    return fmt::format("{} across {} to {} nodes", group, g.fewest_nodes, g.most_nodes);
  }
  return fmt::format("{} across {} nodes", group, g.most_nodes);
}

/// The line under a projection: the nodes its ranks fill and where each of its groups sits.
void print_groups(const model::Projection& p) {
  if (p.groups.empty()) return;  // one rank: nothing to communicate with
  std::vector<std::string> groups;
  for (const model::GroupPlacement& g : p.groups) {
    groups.push_back(p.nodes == 1 ? fmt::format("{}({})", g.name, g.size) : placement_text(g));
  }
  if (p.nodes == 1) {
    fmt::print("  {:>24} 1 node: {}, all within it\n", "", fmt::join(groups, ", "));
  } else {
    fmt::print("  {:>24} {} nodes: {}\n", "", p.nodes, fmt::join(groups, "; "));
  }
  std::vector<std::string> traffic;
  for (const model::GroupTraffic& t : model::traffic_by_group(p)) {
    traffic.push_back(fmt::format("{} {:.3f} GiB in {:.3f} ms{}", t.group, gib(t.bytes),
                                  t.seconds * 1e3, t.inter_node ? " (across nodes)" : ""));
  }
  fmt::print("  {:>24} traffic per device: {}\n", "", fmt::join(traffic, "; "));
}

void print_projection(const model::Projection& p, bool detail) {
  if (!p.fits()) {
    fmt::print("  {:>5} {:<6} {:<9} no grid: {}\n", p.gpus, p.scheme, "-", p.why_not);
    return;
  }
  std::string memory = fmt::format("{:>9.3f}", gib(p.weight_bytes));
  for (Recompute mode : {Recompute::none, Recompute::selective, Recompute::full}) {
    memory += fmt::format(" {:>8.3f}{}",
                          gib(p.activation_bytes_by_recompute[static_cast<std::size_t>(mode)]),
                          mode == p.recompute ? "*" : " ");
  }
  if (p.korthikanti_bytes)
    memory += fmt::format(" (Korthikanti {:.3f})", gib(*p.korthikanti_bytes));
  if (!p.fits_memory) memory += "  exceeds the device's memory";
  memory.erase(memory.find_last_not_of(' ') + 1);
  fmt::print("  {:>5} {:<6} {:<9} {:>10.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>5.0f}% {:>9.3f} {}\n",
             p.gpus, p.scheme, p.grid, p.compute_s * 1e3, p.comm_s() * 1e3, p.comm_latency_s * 1e3,
             p.comm_bandwidth_s * 1e3, p.comm_share() * 100, p.step_s() * 1e3, memory);
  print_groups(p);
  if (!detail) return;
  for (const model::TimedCollective& t : p.collectives) {
    fmt::print("  {:>24} {} on {}({}) {}: {} calls, {} elements, {:.3f} + {:.3f} ms\n", "",
               collective_form(t.row.collective, t.row.op, t.row.root), t.row.group,
               t.row.group_size, t.inter_node ? "across nodes" : "within a node", t.row.calls,
               t.row.elements, t.time.latency_s * 1e3, t.time.bandwidth_s * 1e3);
  }
}

/// The fastest projection that fits the device's memory, else the fastest; null if none fits.
const model::Projection* fastest(const std::vector<model::Projection>& at_one_count) {
  const model::Projection* best = nullptr;
  for (const auto& p : at_one_count) {
    if (!p.fits()) continue;
    const bool better = best == nullptr || (p.fits_memory && !best->fits_memory) ||
                        (p.fits_memory == best->fits_memory && p.step_s() < best->step_s());
    if (better) best = &p;
  }
  return best;
}

/// Every scheme projected to every device count; a named scheme that cannot split the shape
/// over a count is refused, and so is a request no scheme can run at all.
std::map<int, std::vector<model::Projection>> project_every_count(
    const ModelOptions& o, const BlockShape& shape, const model::HardwareProfile& hw) {
  std::map<int, std::vector<model::Projection>> by_count;
  int usable = 0;
  for (int gpus : o.gpus) {
    for (const auto& scheme : o.chosen_schemes()) {
      model::Projection p =
          model::project(scheme, o.scheme, gpus, shape, hw, ranks_per_node(o, hw));
      if (!p.fits() && o.named_schemes()) {
        throw UsageError(fmt::format("{}; got {}", p.why_not, gpus));
      }
      usable += p.fits() ? 1 : 0;
      by_count[gpus].push_back(std::move(p));
    }
  }
  if (usable == 0) {
    throw UsageError(
        fmt::format("no scheme can split {} over {} devices; try other --gpus or "
                    "another shape",
                    to_string(shape), fmt::join(o.gpus, ", ")));
  }

  return by_count;
}

int run_projection(const CLI::App& command, const ModelOptions& o) {
  require_positive(o.gpus, "--gpus");
  if (o.ranks_per_node && *o.ranks_per_node < 1) {
    throw UsageError(fmt::format(
        "--ranks-per-node {}: a node holds a positive number of ranks, such as 8 (a DGX node's "
        "GPUs)",
        *o.ranks_per_node));
  }
  if (o.json) require_writable_file(*o.json, "--json");
  const BlockShape shape = o.block_shape(kProjectionShape);
  refuse_without_effect(command, runs_of(o.chosen_schemes(), o.scheme));
  const auto profiles = model::available_profiles(o.hardware_file);
  const model::HardwareProfile& hw =
      model::find_profile(profiles, o.hardware.empty() ? "dgx-h100" : o.hardware);

  const auto by_count = project_every_count(o, shape, hw);
  print_header(shape, hw, o);
  nlohmann::json projections = nlohmann::json::array();
  nlohmann::json fastest_json = nlohmann::json::object();
  for (int gpus : o.gpus) {
    for (const auto& p : by_count.at(gpus)) {
      print_projection(p, o.detail);
      projections.push_back(model::to_json(p));
    }
    if (const model::Projection* best = fastest(by_count.at(gpus))) {
      fmt::print("  {:>5} fastest: {} ({}), {:.3f} ms per step, {:.0f}% in communication{}\n\n", "",
                 best->scheme, best->grid, best->step_s() * 1e3, best->comm_share() * 100,
                 best->fits_memory ? "" : ", but it exceeds the device's memory");
      fastest_json[std::to_string(gpus)] = best->scheme;
    } else {
      fmt::print("  {:>5} no scheme fits {} devices\n\n", "", gpus);
    }
  }
  if (o.json) {
    nlohmann::json hardware = model::profile_json(hw);
    hardware["name"] = hw.name;
    const nlohmann::json document = {
        {"shape", {{"b", shape.b}, {"s", shape.s}, {"h", shape.h}, {"heads", shape.heads}}},
        {"hardware", hardware},
        {"ranks_per_node", ranks_per_node(o, hw)},
        {"projections", projections},
        {"fastest", fastest_json}};
    write_file_safely(*o.json, document.dump(2) + "\n", "--json");
  }
  return 0;
}

/// The options of a projection: the schemes, the shape, the device counts and the hardware.
void add_projection_options(CLI::App& command, ModelOptions& o) {
  add_scheme_option(command, o.schemes);
  add_dimension_options(command, o, true);
  add_shape_option(command, o.shape,
                   "8,2048,8192,64 for each replica, or --batch, --seq, --hidden and --heads");
  add_gpus_option(command, o.gpus, "device counts to project to")->capture_default_str();
  add_hardware_options(command, o, "dgx-h100", true);
  add_depth_option(command, o.scheme);
  add_mesh_options(command, o.scheme);
  add_recompute_option(command, o.scheme.training);
  add_detail_option(command, o, "every collective's share of the time");
  add_json_option(command, o.json, "the projections");
}

}  // namespace

void add_hardware_options(CLI::App& command, ModelOptions& o, const std::string& hardware_help,
                          bool nodes) {
  command.add_option("--hardware", o.hardware,
                     "profile: dgx-h100, dgx-a100, local (default: " + hardware_help + ")");
  command.add_option("--hardware-file", o.hardware_file,
                     "more profiles, in the format of model/hardware.json");
  if (!nodes) return;
  command.add_option("--ranks-per-node", o.ranks_per_node,
                     "ranks on each node, filled in order (rank r on node r / N); a group with "
                     "ranks on two nodes communicates at the inter-node rate (default: the "
                     "profile's GPUs per node, 8 on dgx-h100 and dgx-a100)");
}

void add_dimension_options(CLI::App& command, ModelOptions& o, bool with_batch) {
  if (with_batch) command.add_option("--batch", o.batch, "b, sequences per step");
  command.add_option("--seq", o.seq, "s, tokens per sequence");
  command.add_option("--hidden", o.hidden, "h, the hidden size");
  command.add_option("--heads", o.heads, "n, attention heads");
}

CLI::Option* add_gpus_option(CLI::App& command, std::vector<int>& gpus, const std::string& what) {
  return command.add_option("--gpus", gpus, what)->delimiter(',');
}

void add_detail_option(CLI::App& command, ModelOptions& o, const std::string& what) {
  command.add_flag("--detail", o.detail, "list " + what);
}

void add_model_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ModelOptions>();
  CLI::App* cmd = app.add_subcommand(
      "model",
      "The cost model: per scheme and device count, the grid, compute and communication time "
      "(alpha-beta, intra- and inter-node links), memory, and the fastest scheme.\n"
      "Its subcommands: plan (which DP x TP x PP for a whole GPT on a cluster), calibrate "
      "(measure this machine into the 'local' profile) and compare (bench step beside the "
      "model's time).");
  cmd->require_subcommand(0, 1);
  add_projection_options(*cmd, *o);
  add_model_plan_command(*cmd, exit_code);
  add_model_calibrate_command(*cmd, exit_code);
  add_model_compare_command(*cmd, exit_code);
  cmd->callback([o, cmd, &exit_code] {
    if (cmd->get_subcommands().empty()) exit_code = run_projection(*cmd, *o);
  });
}

}  // namespace tplab::app
