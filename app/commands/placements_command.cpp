/// @file
/// `tplab placements`: which block of every global tensor each rank holds, as a table or JSON.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "core/error.hpp"
#include "data_parallel_options.hpp"
#include "mesh/mesh_layout.hpp"
#include "registry/make_scheme.hpp"
#include "registry/scheme_registry.hpp"
#include "safe_output.hpp"
#include "scheme/scheme.hpp"

namespace tplab::app {
namespace {

struct PlacementsOptions {
  std::string scheme = "1d";
  std::optional<int> np;  ///< default: 2 x D
  std::string shape = "4,4,8,4";
  int depth = 0;
  DataParallelOptions data_parallel;
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

int run_placements(const PlacementsOptions& o) {
  const BlockShape shape = parse_block_shape(o.shape);
  const int np = o.np.value_or(2 * o.data_parallel.dp);
  if (np < 1) throw UsageError(fmt::format("--np {}: a world needs at least one rank", np));
  if (o.json) require_writable_file(*o.json, "--json");
  const auto scheme = make_scheme(o.scheme, o.data_parallel.applied_to(SchemeOptions{o.depth}));
  scheme->validate(np, shape);
  const std::vector<TensorPlacement> placements = scheme->placements(np, shape, Workload::block);
  const std::string grid = scheme->describe_grid(np, shape);
  const MeshLayout mesh{o.data_parallel.dp, np / o.data_parallel.dp};
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
  cmd->add_option("--scheme", o->scheme, scheme_help_list())->capture_default_str();
  cmd->add_option("--np", o->np, "world size p (default: 2, times D with --dp)");
  cmd->add_option("--shape", o->shape, "b,s,h,heads")->capture_default_str();
  cmd->add_option("--depth", o->depth, "2.5D depth d (default: d = p/q^2 with the largest q)");
  add_data_parallel_options(*cmd, o->data_parallel);
  cmd->add_option("--json", o->json, "also write the placements as JSON to this file");
  cmd->callback([o, &exit_code] { exit_code = run_placements(*o); });
}

}  // namespace tplab::app
