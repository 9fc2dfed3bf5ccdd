/// @file
/// `tplab placements`: which block of every global tensor each rank holds, as a table or JSON.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "core/error.hpp"
#include "safe_output.hpp"
#include "scheme/scheme.hpp"
#include "scheme/scheme_registry.hpp"

namespace tplab::app {
namespace {

struct PlacementsOptions {
  std::string scheme = "1d";
  int np = 2;
  std::string shape = "4,4,8,4";
  int depth = 0;
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

int run_placements(const PlacementsOptions& o) {
  const BlockShape shape = parse_block_shape(o.shape);
  if (o.np < 1) throw UsageError(fmt::format("--np {}: a world needs at least one rank", o.np));
  if (o.json) require_writable_file(*o.json, "--json");
  const auto scheme = make_scheme(o.scheme, SchemeOptions{o.depth});
  scheme->validate(o.np, shape);
  const std::vector<TensorPlacement> placements = scheme->placements(o.np, shape, Workload::block);
  const std::string grid = scheme->describe_grid(o.np, shape);
  fmt::print(
      "{} on {} ranks ({}), {}: the block of every global tensor [rows, cols] each rank "
      "holds (a vector [n] as [1, n])\n",
      scheme->name(), o.np, grid, to_string(shape));
  print_table(placements);
  if (o.json) {
    nlohmann::json tensors = nlohmann::json::array();
    for (const auto& p : placements) tensors.push_back(placement_json(p));
    const nlohmann::json document = {
        {"scheme", scheme->name()},
        {"world_size", o.np},
        {"grid", grid},
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
  cmd->add_option("--np", o->np, "world size p")->capture_default_str();
  cmd->add_option("--shape", o->shape, "b,s,h,heads")->capture_default_str();
  cmd->add_option("--depth", o->depth, "2.5D depth d (default: d = p/q^2 with the largest q)");
  cmd->add_option("--json", o->json, "also write the placements as JSON to this file");
  cmd->callback([o, &exit_code] { exit_code = run_placements(*o); });
}

}  // namespace tplab::app
