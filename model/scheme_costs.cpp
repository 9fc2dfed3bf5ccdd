/// @file
/// The cost model of every registered scheme: from a scheme and its world size to the grid
/// sizes its cost_*() function takes.
#include "scheme_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "cost_1d.hpp"
#include "cost_1d_sp.hpp"
#include "cost_2d.hpp"
#include "cost_2p5d.hpp"
#include "cost_3d.hpp"
#include "grid/grid_2d.hpp"
#include "grid/grid_3d.hpp"
#include "registry/scheme_registry.hpp"

namespace tplab::model {
namespace {

KeptSavings sequence_parallel_savings(const BlockShape& shape, int t, Workload workload) {
  return {
      .technique = "sequence parallelism",
      .compared_with = "1d",
      .elements = sequence_parallel_activation_savings(shape, t, workload),
      .formula = workload == Workload::linear_pair ? "(t-1)/t x m h" : "(t-1)/t x (4 m h + 2 m)"};
}

constexpr std::array<SchemeCostModel, 5> kCostModels = {{
    {.scheme = "1d",
     .rank_cost = [](const Scheme&, const SchemeOptions&, int t, const BlockShape& shape,
                     Workload workload) { return cost_1d(shape, t, workload); },
     .korthikanti_bytes = korthikanti_activation_bytes_1d,
     .gpt_parts_kept =
         [](const Scheme&, const SchemeOptions&, int t, const gpt::GptShape& shape) {
           return gpt_parts_kept_1d(shape, t, false);
         }},
    {.scheme = "1d-sp",
     .rank_cost = [](const Scheme&, const SchemeOptions&, int t, const BlockShape& shape,
                     Workload workload) { return cost_1d_sp(shape, t, workload); },
     .korthikanti_bytes = korthikanti_activation_bytes_1d_sp,
     .kept_savings = sequence_parallel_savings,
     .gpt_parts_kept =
         [](const Scheme&, const SchemeOptions&, int t, const gpt::GptShape& shape) {
           return gpt_parts_kept_1d(shape, t, true);
         }},
    {.scheme = "2d",
     .rank_cost = [](const Scheme&, const SchemeOptions&, int p, const BlockShape& shape,
                     Workload workload) { return cost_2d(shape, square_root(p), workload); },
     .gpt_parts_kept =
         [](const Scheme&, const SchemeOptions&, int p, const gpt::GptShape& shape) {
           return gpt_parts_kept_mesh(shape, square_root(p), 1);
         }},
    {.scheme = "2.5d",
     .rank_cost =
         [](const Scheme& scheme, const SchemeOptions&, int p, const BlockShape& shape,
            Workload workload) {
           const int d = scheme.depth_for(p, shape);
           return cost_2p5d(shape, square_root(p / d), d, workload);
         },
     .gpt_parts_kept =
         [](const Scheme& scheme, const SchemeOptions&, int p, const gpt::GptShape& shape) {
           const int d = scheme.depth_for(p, shape.block);
           return gpt_parts_kept_mesh(shape, square_root(p / d), d);
         }},
    {.scheme = "3d",
     .rank_cost =
         [](const Scheme&, const SchemeOptions& options, int p, const BlockShape& shape,
            Workload workload) { return cost_3d(shape, cube_side(p), options.regather, workload); },
     .gpt_parts_kept =
         [](const Scheme&, const SchemeOptions& options, int p, const gpt::GptShape& shape) {
           return gpt_parts_kept_3d(shape, cube_side(p), options.regather);
         }},
}};

}  // namespace

std::span<const SchemeCostModel> scheme_cost_models() {
  return kCostModels;
}

const SchemeCostModel& cost_model_of(std::string_view name) {
  const std::string_view known = find_scheme(name).name;
  const auto found =
      std::find_if(kCostModels.begin(), kCostModels.end(),
                   [&](const SchemeCostModel& model) { return model.scheme == known; });
  if (found == kCostModels.end()) {
    throw InternalError(fmt::format("the cost model has no formulas for scheme '{}'", name));
  }
  return *found;
}

}  // namespace tplab::model
