/// @file
/// `tplab placements`: which block of every global tensor each rank holds, as a table or JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "core/error.hpp"
#include "launch_options.hpp"
#include "mesh/mesh_layout.hpp"
#include "mesh_options.hpp"
#include "option_effects.hpp"
#include "problem_options.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "safe_output.hpp"
#include "scheme/scheme.hpp"
#include "scheme_choice.hpp"

namespace tplab::app {
namespace {

/// The default block: small enough to read every rank's rows, and split by every scheme at
/// its default world size (for each replica).
constexpr BlockShape kDefaultShape{4, 4, 8, 4};

struct PlacementsOptions {
  std::string scheme = "1d";
  std::optional<int> np;            ///< unset: the scheme's default world size, times D
  std::optional<BlockShape> shape;  ///< unset: kDefaultShape for each replica
  SchemeOptions options;            ///< --depth, --dp, --dp-buckets
  std::optional<std::string> json;
};

nlohmann::json placement_json(const TensorPlacement& p) {
  nlohmann::json blocks = nlohmann::json::array();
  for (std::size_t rank = 0; rank < p.blocks.size(); ++rank) {
    const BlockRange& b = p.blocks[rank];
    blocks.push_back(
        {{"rank", rank}, {"row0", b.row0}, {"rows", b.rows}, {"col0", b.col0}, {"cols", b.cols}});
  }
  return {{"tensor", p.tensor}, {"global", p.global}, {"rule", p.rule}, {"blocks", blocks}};
}

/// "[0, 4)" for the half-open range of `count` indices from `first`.
std::string half_open(std::int64_t first, std::int64_t count) {
  return fmt::format("[{}, {})", first, first + count);
}

void print_table(const std::vector<TensorPlacement>& placements) {
  std::size_t rule_width = 4;
  for (const auto& p : placements) rule_width = std::max(rule_width, p.rule.size());
  fmt::print("{:<10} {:>10}  {:<{}} {:>4}  {:<10} {:<10} {}\n", "tensor", "global", "rule",
             rule_width, "rank", "rows", "cols", "local");
  for (const auto& p : placements) {
    for (std::size_t rank = 0; rank < p.blocks.size(); ++rank) {
      const BlockRange& b = p.blocks[rank];
      const bool first = rank == 0;
      fmt::print("{:<10} {:>10}  {:<{}} {:>4}  {:<10} {:<10} {}\n", first ? p.tensor : "",
                 first ? to_string(p.global) : "", first ? p.rule : "", rule_width, rank,
                 half_open(b.row0, b.rows), half_open(b.col0, b.cols),
                 to_string(p.local_extents(static_cast<int>(rank))));
    }
  }
}

/// The mesh of D replicas: a row of world ranks per replica (its TP group), a column per DP
/// group.
void print_mesh(const MeshLayout& mesh, const std::string& grid) {
  fmt::print("mesh {}\n", describe_mesh(mesh, grid));
  fmt::print("  {:<12}", "scheme rank");
  for (int s = 0; s < mesh.scheme_ranks; ++s) fmt::print(" {:>4}", s);
  fmt::print("\n");
  for (int r = 0; r < mesh.replicas; ++r) {
    fmt::print("  {:<12}", fmt::format("replica {}", r));
    for (int s = 0; s < mesh.scheme_ranks; ++s) fmt::print(" {:>4}", r * mesh.scheme_ranks + s);
    fmt::print("   <- one replica: the scheme's groups live inside these ranks\n");
  }
  fmt::print("  DP groups (one per column, gradients all-reduced over each):");
  for (int s = 0; s < mesh.scheme_ranks; ++s) {
    fmt::print(" {{{}}}", fmt::join(mesh.dp_ranks(s), ","));
  }
  fmt::print("\n\n");
}

nlohmann::json mesh_json(const MeshLayout& mesh) {
  nlohmann::json replica = nlohmann::json::array(), scheme_rank = nlohmann::json::array();
  for (int w = 0; w < mesh.world_size(); ++w) {
    replica.push_back(mesh.replica_of(w));
    scheme_rank.push_back(mesh.scheme_rank_of(w));
  }
  return {{"dp", mesh.replicas},
          {"scheme_ranks", mesh.scheme_ranks},
          {"replica", replica},
          {"scheme_rank", scheme_rank}};
}

int run_placements(const CLI::App& command, const PlacementsOptions& o) {
  const BlockShape shape = global_shape(o.shape, kDefaultShape, o.options);
  const int np = o.np.value_or(o.options.dp * find_scheme(o.scheme).train_world_size);
  refuse_without_effect(command,
                        std::vector<PlannedRun>{{.scheme = o.scheme, .options = o.options}});
  if (o.json) require_writable_file(*o.json, "--json");
  const auto scheme = make_scheme(o.scheme, o.options);
  scheme->validate(np, shape);
  const std::vector<TensorPlacement> placements = scheme->placements(np, shape, Workload::block);
  const std::string grid = scheme->describe_grid(np, shape);
  const MeshLayout mesh = mesh_of(o.options, np);
  fmt::print(
      "{} on {} ranks ({}), {}: the block of every global tensor [rows, cols] each rank "
      "holds (a vector [n] as [1, n])\n",
      scheme->name(), np, grid, to_string(shape));
  if (mesh.replicas > 1) print_mesh(mesh, grid.substr(grid.find(' ') + 1));
  print_table(placements);
  if (o.json) {
    nlohmann::json tensors = nlohmann::json::array();
    for (const auto& p : placements) tensors.push_back(placement_json(p));
    const nlohmann::json document = {
        {"scheme", scheme->name()},
        {"world_size", np},
        {"grid", grid},
        {"mesh", mesh_json(mesh)},
        {"shape", {{"b", shape.b}, {"s", shape.s}, {"h", shape.h}, {"heads", shape.heads}}},
        {"tensors", tensors}};
    write_file_safely(*o.json, document.dump(2) + "\n", "--json");
  }
  return 0;
}

}  // namespace

void add_placements_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<PlacementsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "placements",
      "Which block of every global tensor each rank holds under a scheme (no MPI: placements "
      "are pure functions of the scheme, world size and shape)");
  add_scheme_option(*cmd, o->scheme);
  add_np_option(*cmd, o->np, "the scheme's smallest world that splits a GPT, times D with --dp D");
  add_shape_option(*cmd, o->shape, "4,4,8,4 for each replica");
  add_depth_option(*cmd, o->options);
  add_mesh_options(*cmd, o->options);
  add_json_option(*cmd, o->json, "the placements besides the table");
  cmd->callback([o, cmd, &exit_code] { exit_code = run_placements(*cmd, *o); });
}

}  // namespace tplab::app
