/// @file
/// The entries of the scheme registry, in teaching order.
#include "registry/scheme_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "gpt/gpt_layout_1d.hpp"
#include "gpt/gpt_layout_3d.hpp"
#include "gpt/gpt_layout_mesh.hpp"
#include "tp1d/scheme_1d.hpp"
#include "tp2d/scheme_2d.hpp"
#include "tp2p5d/scheme_2p5d.hpp"
#include "tp3d/scheme_3d.hpp"

namespace tplab {
namespace {

// train_world_size: 1D (and 1D with sequence parallelism) on 2 ranks, 2D on a 2 x 2 mesh,
// 2.5D on two layers of 2 x 2 (with d = 1 it would be 2D), 3D on a 2 x 2 x 2 cube.
constexpr std::array<SchemeEntry, 5> kSchemes = {{
    {.name = "1d",
     .help = "1D (Megatron): t ranks split the heads and the MLP; activations replicated",
     .make = [](const SchemeOptions& options) -> std::unique_ptr<Scheme> {
       return std::make_unique<tp1d::Scheme1D>(tp1d::Mode1D{.sequence_parallel = false}, options);
     },
     .make_gpt_layout = [](const SchemeOptions&) -> std::unique_ptr<gpt::GptLayout> {
       return std::make_unique<gpt::GptLayout1D>(false);
     },
     .train_world_size = 2},
    {.name = "1d-sp",
     .help =
         "1D with sequence parallelism: as 1d, the activations outside the linears split by tokens",
     .make = [](const SchemeOptions& options) -> std::unique_ptr<Scheme> {
       return std::make_unique<tp1d::Scheme1D>(tp1d::Mode1D{.sequence_parallel = true}, options);
     },
     .make_gpt_layout = [](const SchemeOptions&) -> std::unique_ptr<gpt::GptLayout> {
       return std::make_unique<gpt::GptLayout1D>(true);
     },
     .train_world_size = 2},
    {.name = "2d",
     .help = "2D (SUMMA): a q x q mesh splits activations and weights into blocks",
     .make = [](const SchemeOptions& options) -> std::unique_ptr<Scheme> {
       return std::make_unique<tp2d::Scheme2D>(options);
     },
     .make_gpt_layout = [](const SchemeOptions&) -> std::unique_ptr<gpt::GptLayout> {
       return std::make_unique<gpt::GptLayoutMesh>(false, 1);
     },
     .train_world_size = 4},
    {.name = "2.5d",
     .help = "2.5D (Tesseract): d layers of q x q meshes, the tokens split over the layers too",
     .make = [](const SchemeOptions& options) -> std::unique_ptr<Scheme> {
       if (options.depth < 0) {
         throw UsageError(
             fmt::format("--depth {}: the depth is a number of layers, at least 1", options.depth));
       }
       return std::make_unique<tp2p5d::Scheme2p5D>(options);
     },
     .make_gpt_layout = [](const SchemeOptions& options) -> std::unique_ptr<gpt::GptLayout> {
       return std::make_unique<gpt::GptLayoutMesh>(true, options.depth);
     },
     .train_world_size = 8},
    {.name = "3d",
     .help = "3D: a q x q x q cube splits inputs, weights and outputs over its three axes",
     .make = [](const SchemeOptions& options) -> std::unique_ptr<Scheme> {
       return std::make_unique<tp3d::Scheme3D>(options);
     },
     .make_gpt_layout = [](const SchemeOptions& options) -> std::unique_ptr<gpt::GptLayout> {
       return std::make_unique<gpt::GptLayout3D>(options.regather);
     },
     .train_world_size = 8},
}};

}  // namespace

std::span<const SchemeEntry> scheme_registry() {
  return kSchemes;
}

const SchemeEntry& find_scheme(std::string_view name) {
  const auto found = std::find_if(kSchemes.begin(), kSchemes.end(),
                                  [&](const SchemeEntry& entry) { return entry.name == name; });
  if (found == kSchemes.end()) {
    throw UsageError(fmt::format("unknown scheme '{}' (known: {})", name, scheme_help_list()));
  }
  return *found;
}

std::vector<std::string> scheme_names() {
  std::vector<std::string> names;
  for (const SchemeEntry& entry : scheme_registry()) names.emplace_back(entry.name);
  return names;
}

bool names_schemes(const std::vector<std::string>& names) {
  return !names.empty() && names != std::vector<std::string>{"all"};
}

std::vector<std::string> chosen_schemes(const std::vector<std::string>& names) {
  if (!names_schemes(names)) return scheme_names();
  for (const auto& name : names) find_scheme(name);
  return names;
}

std::string scheme_help_list() {
  std::string list;
  for (const SchemeEntry& entry : kSchemes) {
    list += (list.empty() ? "" : ", ") + std::string(entry.name);
  }
  return list;
}

std::string scheme_help_table() {
  std::string table = "Schemes:";
  for (const SchemeEntry& entry : kSchemes) {
    table += fmt::format("\n  {:<6} {}", entry.name, entry.help);
  }
  return table;
}

}  // namespace tplab
