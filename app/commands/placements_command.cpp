/// @file
/// `tplab placements`: which block of every global tensor each rank holds, as a table or JSON;
/// with --pp S, the pipeline's mesh, which blocks of the GPT each stage holds and each stage's
/// schedule too.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>

#include "commands.hpp"
#include "core/error.hpp"
#include "gpt/gpt_shape.hpp"
#include "launch_options.hpp"
#include "mesh/mesh_layout.hpp"
#include "mesh_options.hpp"
#include "option_effects.hpp"
#include "pipeline/pipeline_problem.hpp"
#include "pipeline/stage_actions.hpp"
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

/// The GPT that --pp S cuts into stages when --layers and --vocab are not given: train's
/// default, L = 2 blocks over a vocabulary of 64 tokens.
constexpr std::int64_t kDefaultLayers = 2;
constexpr std::int64_t kDefaultVocab = 64;

struct PlacementsOptions {
  std::string scheme = "1d";
  std::optional<int> np;               ///< unset: the scheme's default world size, times D x S
  std::optional<BlockShape> shape;     ///< unset: kDefaultShape for each replica
  SchemeOptions options;               ///< --depth, --dp, --dp-buckets, --pp, --micro-batches, ...
  std::int64_t vocab = kDefaultVocab;  ///< V, with --pp S: the embedding's and the head's rows
  std::int64_t layers = kDefaultLayers;  ///< L, with --pp S: the blocks the stages split
  std::optional<std::string> json;
};

/// placements' own options that change pipelined runs only (--schedule is a shared rule).
constexpr std::array<EffectRule<PlannedRun>, 3> kPlacementsRules = {{
    {"--layers", [](const PlannedRun& r) { return r.options.pp > 1; },
     "it sizes the GPT whose blocks a pipeline's stages split, and this run is one stage, which "
     "holds every block (add --pp S with S > 1)"},
    {"--vocab", [](const PlannedRun& r) { return r.options.pp > 1; },
     "it sizes the embedding of a pipeline's first stage and the head of its last, and this run "
     "is one stage (add --pp S with S > 1)"},
    {"--micro-batches", [](const PlannedRun& r) { return r.options.pp > 1; },
     "on one stage micro-batches only accumulate gradients, which places nothing differently; "
     "placements shows them in a pipeline's schedule (add --pp S with S > 1)"},
}};

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

/// "{0,2} {1,3}": groups of world ranks.
std::string groups_text(const std::vector<std::vector<int>>& groups) {
  std::string text;
  for (const auto& g : groups) {
    text += fmt::format("{}{{{}}}", text.empty() ? "" : " ", fmt::join(g, ","));
  }
  return text;
}

/// One row per rank that holds a block of each tensor (with stages, a layer's tensors live on
/// its stage's ranks only); the tensor's name in a column `name_width` wide.
void print_table(const std::vector<TensorPlacement>& placements, std::size_t name_width = 10) {
  std::size_t rule_width = 4;
  for (const auto& p : placements) rule_width = std::max(rule_width, p.rule.size());
  fmt::print("{:<{}} {:>10}  {:<{}} {:>4}  {:<10} {:<10} {}\n", "tensor", name_width, "global",
             "rule", rule_width, "rank", "rows", "cols", "local");
  for (const auto& p : placements) {
    bool first = true;
    for (std::size_t rank = 0; rank < p.blocks.size(); ++rank) {
      const BlockRange& b = p.blocks[rank];
      if (b == BlockRange{} && element_count(p.global) > 0) continue;  // held on another stage
      fmt::print("{:<{}} {:>10}  {:<{}} {:>4}  {:<10} {:<10} {}\n", first ? p.tensor : "",
                 name_width, first ? to_string(p.global) : "", first ? p.rule : "", rule_width,
                 rank, half_open(b.row0, b.rows), half_open(b.col0, b.cols),
                 to_string(p.local_extents(static_cast<int>(rank))));
      first = false;
    }
  }
}

/// The DP groups: one per stage and scheme rank, the ranks that hold the same shards in every
/// replica, in stage-major order.
std::vector<std::vector<int>> dp_groups(const MeshLayout& mesh) {
  std::vector<std::vector<int>> groups;
  for (int w = 0; w < mesh.stages * mesh.scheme_ranks; ++w) groups.push_back(mesh.dp_ranks(w));
  return groups;
}

/// The PP groups: one per replica and scheme rank, the ranks of every stage in stage order.
std::vector<std::vector<int>> pp_groups(const MeshLayout& mesh) {
  std::vector<std::vector<int>> groups;
  for (int r = 0; r < mesh.replicas; ++r) {
    for (int s = 0; s < mesh.scheme_ranks; ++s) {
      groups.push_back(mesh.pp_ranks(r * mesh.stages * mesh.scheme_ranks + s));
    }
  }
  return groups;
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

/// The mesh of D replicas of S stages: a row of world ranks per (replica, stage), its TP group;
/// the PP groups, along which neighbouring stages pass activations and their gradients; the DP
/// groups, over which the gradients are all-reduced.
void print_pipeline_mesh(const MeshLayout& mesh, const std::string& grid) {
  fmt::print("mesh {}\n", describe_mesh(mesh, grid));
  fmt::print("  {:<20}", "scheme rank");
  for (int s = 0; s < mesh.scheme_ranks; ++s) fmt::print(" {:>4}", s);
  fmt::print("\n");
  for (int r = 0; r < mesh.replicas; ++r) {
    for (int stage = 0; stage < mesh.stages; ++stage) {
      fmt::print("  {:<20}", fmt::format("replica {} stage {}", r, stage));
      const int first = (r * mesh.stages + stage) * mesh.scheme_ranks;
      for (int s = 0; s < mesh.scheme_ranks; ++s) fmt::print(" {:>4}", first + s);
      fmt::print("   <- one stage of one replica: the scheme's groups live inside these ranks\n");
    }
  }
  fmt::print(
      "  PP groups (one per replica and scheme rank, activations passed forward and their "
      "gradients back between neighbouring stages): {}\n",
      groups_text(pp_groups(mesh)));
  if (mesh.replicas > 1) {
    fmt::print("  DP groups (one per stage and scheme rank, gradients all-reduced over each): {}\n",
               groups_text(dp_groups(mesh)));
  } else {
    fmt::print("  DP groups: none, one replica (add --dp D with D > 1)\n");
  }
  fmt::print("\n");
}

/// The ranks of stage `stage` in every replica, one group of P per replica.
std::vector<std::vector<int>> stage_ranks(const MeshLayout& mesh, int stage) {
  std::vector<std::vector<int>> groups;
  for (int r = 0; r < mesh.replicas; ++r) {
    groups.push_back(mesh.replica_ranks((r * mesh.stages + stage) * mesh.scheme_ranks));
  }
  return groups;
}

/// What stage `stage` holds besides its blocks, with the extents of `shape`: "" for a middle
/// stage.
std::string stage_extras(const gpt::GptStage& stage, const gpt::GptShape& shape) {
  const auto extents = [&](std::string_view tensor) {
    return to_string(gpt::gpt_extents(tensor, shape));
  };
  std::string text;
  if (stage.first()) {
    text =
        fmt::format("the embedding [V, h] = {}, which takes the token ids", extents("embedding"));
  }
  if (stage.last()) {
    text += fmt::format(
        "{}the final LayerNorm [h] = {}, the head [h, V] = {} with its bias [V] = {}, and the loss",
        text.empty() ? "" : "; ", extents("lnf_gamma"), extents("w_head"), extents("b_head"));
  }
  return text;
}

/// Which blocks of the GPT each stage holds, on which ranks, and the order in which it runs its
/// micro-batches.
void print_stages(const MeshLayout& mesh, const gpt::GptShape& gpt, const SchemeOptions& o) {
  fmt::print("stages: a GPT of L = {} blocks (V = {}), L/S = {} on each stage\n", gpt.layers,
             gpt.vocab, gpt.layers / mesh.stages);
  for (int s = 0; s < mesh.stages; ++s) {
    const gpt::GptStage stage{.stage = s, .stages = mesh.stages};
    const std::string extras = stage_extras(stage, gpt);
    fmt::print("  stage {} on {}: blocks {}{}{}\n", s, groups_text(stage_ranks(mesh, s)),
               half_open(stage.first_layer(gpt), stage.layers(gpt)), extras.empty() ? "" : ", ",
               extras);
  }
  const std::int64_t sequences =
      gpt.block.b / (static_cast<std::int64_t>(mesh.replicas) * o.micro_batches);
  fmt::print(
      "schedule {}: each replica's b/D = {} sequences in M = {} micro-batch{} of b/(D x M) = {}\n",
      schedule_name(o.schedule), gpt.block.b / mesh.replicas, o.micro_batches,
      o.micro_batches == 1 ? "" : "es", sequences);
  for (int s = 0; s < mesh.stages; ++s) {
    const auto actions = pipeline::stage_actions(o.schedule, mesh.stages, s, o.micro_batches);
    const int kept = pipeline::most_in_flight(actions);
    fmt::print("  stage {}: {}   ({} micro-batch{} in flight at most)\n", s,
               pipeline::to_string(actions), kept, kept == 1 ? "" : "es");
  }
  fmt::print("\n");
}

nlohmann::json mesh_json(const MeshLayout& mesh) {
  nlohmann::json replica = nlohmann::json::array(), scheme_rank = nlohmann::json::array(),
                 stage = nlohmann::json::array();
  for (int w = 0; w < mesh.world_size(); ++w) {
    replica.push_back(mesh.replica_of(w));
    scheme_rank.push_back(mesh.scheme_rank_of(w));
    stage.push_back(mesh.stage_of(w));
  }
  return {{"dp", mesh.replicas},
          {"scheme_ranks", mesh.scheme_ranks},
          {"replica", replica},
          {"scheme_rank", scheme_rank},
          {"pp", mesh.stages},
          {"stage", stage},
          {"dp_groups", dp_groups(mesh)},
          {"pp_groups", pp_groups(mesh)}};
}

nlohmann::json pipeline_json(const MeshLayout& mesh, const gpt::GptShape& gpt,
                             const SchemeOptions& o) {
  nlohmann::json stages = nlohmann::json::array();
  for (int s = 0; s < mesh.stages; ++s) {
    const gpt::GptStage stage{.stage = s, .stages = mesh.stages};
    const auto actions = pipeline::stage_actions(o.schedule, mesh.stages, s, o.micro_batches);
    nlohmann::json holds = nlohmann::json::array();
    if (stage.first()) holds.push_back("embedding");
    if (stage.last()) {
      for (const char* part : {"lnf_gamma", "lnf_beta", "w_head", "b_head", "loss"}) {
        holds.push_back(part);
      }
    }
    stages.push_back({{"stage", s},
                      {"ranks", stage_ranks(mesh, s)},
                      {"first_layer", stage.first_layer(gpt)},
                      {"layers", stage.layers(gpt)},
                      {"holds", holds},
                      {"actions", pipeline::to_string(actions)},
                      {"most_in_flight", pipeline::most_in_flight(actions)}});
  }
  return {{"layers", gpt.layers},
          {"vocab", gpt.vocab},
          {"micro_batches", o.micro_batches},
          {"schedule", schedule_name(o.schedule)},
          {"stages", stages}};
}

/// What one scheme's placements come to on the whole world.
struct Placed {
  std::vector<TensorPlacement> placements;
  std::string grid;         ///< the whole world's: "t=2", "dp=2 t=2", "dp=2 pp=2 q=2 d=2"
  std::string scheme_grid;  ///< one stage of one replica's: "t=2", "q=2 d=2"
  std::string name;         ///< the scheme's, as --scheme names it: "1d"
};

/// The scheme's refusal `e` of one stage's world, said of the whole world: the scheme's rules
/// speak of the np/S ranks of one stage, and the worlds that would work are S times as large.
UsageError per_stage_error(const UsageError& e, const Scheme& stage_scheme, const BlockShape& shape,
                           int np, int stages) {
  std::vector<int> worlds;
  for (int p : stage_scheme.usable_world_sizes(shape, 64)) worlds.push_back(p * stages);
  return UsageError(fmt::format(
      "--pp {} runs each stage on np/S = {} of the {} ranks, so the scheme's rule applies to "
      "those: {}; so --pp {} needs --np {}",
      stages, np / stages, np, e.what(), stages,
      worlds.empty() ? std::string("that no world of up to 64 ranks per stage has")
                     : alternatives(worlds)));
}

/// With --pp S: the rules of the pipeline, then the scheme's on one stage's world and on one
/// micro-batch, and the placements of every block's tensors on the ranks of its layer's stage,
/// named "layer0.wq".
Placed pipeline_placements(const PlacementsOptions& o, const BlockShape& shape,
                           const gpt::GptShape& gpt, int np) {
  if (const std::string problem = gpt::gpt_shape_problem(gpt); !problem.empty()) {
    throw UsageError(fmt::format("shape {}: {}", gpt::to_string(gpt), problem));
  }
  if (const std::string problem = pipeline::pipeline_problem(o.options, gpt, np);
      !problem.empty()) {
    throw UsageError(problem);
  }
  const int stages = o.options.pp;
  SchemeOptions one_stage = o.options;
  one_stage.pp = 1;
  const auto stage_scheme = make_scheme(o.scheme, one_stage);
  try {
    stage_scheme->validate(np / stages, shape);
  } catch (const UsageError& e) {
    throw per_stage_error(e, *stage_scheme, shape, np, stages);
  }
  const MeshLayout mesh = mesh_of(o.options, np);
  const auto replica_scheme = make_scheme(o.scheme, replica_options(o.options));
  const BlockShape local = replica_shape(shape, mesh.replicas);
  const BlockShape micro = pipeline::micro_batch_shape(gpt, o.options).block;
  try {
    replica_scheme->validate(mesh.scheme_ranks, micro);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format(
        "--micro-batches {} runs each stage's blocks on b/(D x M) = {} sequence{} at a time ({}): "
        "{}; use fewer micro-batches or a larger batch",
        o.options.micro_batches, micro.b, micro.b == 1 ? "" : "s", to_string(micro), e.what()));
  }
  const std::vector<TensorPlacement> block =
      replica_scheme->placements(mesh.scheme_ranks, local, Workload::block);
  Placed placed;
  for (std::int64_t layer = 0; layer < gpt.layers; ++layer) {
    // The stage that holds the layer's parameters holds its activations too.
    const int holder = gpt::stage_holding(gpt::layer_parameter("wq", layer), gpt, stages);
    for (TensorPlacement& p : mesh_placements(block, mesh, local.tokens(),
                                              [holder](std::string_view) { return holder; })) {
      p.tensor = gpt::layer_parameter(p.tensor, layer);
      placed.placements.push_back(std::move(p));
    }
  }
  placed.scheme_grid = replica_scheme->describe_grid(mesh.scheme_ranks, local);
  placed.grid =
      fmt::format("{}pp={} {}", mesh.replicas > 1 ? fmt::format("dp={} ", mesh.replicas) : "",
                  stages, placed.scheme_grid);
  placed.name = replica_scheme->name();
  return placed;
}

int run_placements(const CLI::App& command, const PlacementsOptions& o) {
  const BlockShape shape = global_shape(o.shape, kDefaultShape, o.options);
  const int np =
      o.np.value_or(o.options.dp * o.options.pp * find_scheme(o.scheme).train_world_size);
  const std::vector<PlannedRun> runs{{.scheme = o.scheme, .options = o.options}};
  refuse_without_effect(command, runs);
  refuse_without_effect(command, std::span<const EffectRule<PlannedRun>>(kPlacementsRules), runs);
  if (o.json) require_writable_file(*o.json, "--json");
  const bool pipelined = o.options.pp > 1;
  const gpt::GptShape gpt{.block = shape, .vocab = o.vocab, .layers = o.layers};
  Placed placed;
  if (pipelined) {
    placed = pipeline_placements(o, shape, gpt, np);
  } else {
    const auto scheme = make_scheme(o.scheme, o.options);
    scheme->validate(np, shape);
    placed.placements = scheme->placements(np, shape, Workload::block);
    placed.grid = scheme->describe_grid(np, shape);
    // DataParallelScheme's grid is "dp=D " before the scheme's own.
    placed.scheme_grid =
        o.options.dp > 1 ? placed.grid.substr(placed.grid.find(' ') + 1) : placed.grid;
    placed.name = scheme->name();
  }
  const std::vector<TensorPlacement>& placements = placed.placements;
  const std::string& grid = placed.grid;
  const MeshLayout mesh = mesh_of(o.options, np);
  fmt::print(
      "{} on {} ranks ({}), {}: the block of every global tensor [rows, cols] each rank "
      "holds (a vector [n] as [1, n])\n",
      placed.name, np, grid, to_string(shape));
  if (pipelined) {
    print_pipeline_mesh(mesh, placed.scheme_grid);
    print_stages(mesh, gpt, o.options);
    std::size_t name_width = 10;
    for (const auto& p : placements) name_width = std::max(name_width, p.tensor.size());
    print_table(placements, name_width);
  } else {
    if (mesh.replicas > 1) print_mesh(mesh, placed.scheme_grid);
    print_table(placements);
  }
  if (o.json) {
    nlohmann::json tensors = nlohmann::json::array();
    for (const auto& p : placements) tensors.push_back(placement_json(p));
    nlohmann::json document = {
        {"scheme", placed.name},
        {"world_size", np},
        {"grid", grid},
        {"mesh", mesh_json(mesh)},
        {"shape", {{"b", shape.b}, {"s", shape.s}, {"h", shape.h}, {"heads", shape.heads}}},
        {"tensors", tensors}};
    if (pipelined) document["pipeline"] = pipeline_json(mesh, gpt, o.options);
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
      "are pure functions of the scheme, world size and shape); with --pp S also the pipeline's "
      "mesh, which blocks of the GPT each stage holds and each stage's schedule");
  add_scheme_option(*cmd, o->scheme);
  add_np_option(*cmd, o->np,
                "the scheme's smallest world that splits a GPT, times D x S with --dp D --pp S");
  add_shape_option(*cmd, o->shape, "4,4,8,4 for each replica");
  add_gpt_size_options(*cmd, o->vocab, o->layers);
  add_depth_option(*cmd, o->options);
  add_mesh_options(*cmd, o->options);
  add_pipeline_options(*cmd, o->options);
  add_json_option(*cmd, o->json, "the placements besides the table");
  cmd->callback([o, cmd, &exit_code] { exit_code = run_placements(*cmd, *o); });
}

}  // namespace tplab::app
