/// @file
/// The cost model's side of the scheme registry: for each entry of scheme_registry(), under
/// the same name, the function that gives one rank's cost and the published formulas set beside
/// it. It is a table of its own because its functions live in tplab_model, which links
/// tplab_parallel, so the registry there cannot name them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "gpt/gpt_shape.hpp"
#include "rank_cost.hpp"

namespace tplab::model {

/// What a scheme keeps fewer for backward than the scheme it refines, for verify's report.
struct KeptSavings {
  std::string_view technique;      ///< what keeps less: "sequence parallelism"
  std::string_view compared_with;  ///< the scheme it keeps less than: "1d"
  std::int64_t elements = 0;       ///< elements fewer on each rank
  std::string_view formula;        ///< `elements` in the shape's letters: "(t-1)/t x m h"
};

/// One scheme's cost model.
struct SchemeCostModel {
  /// The registry entry's name: "1d", "2.5d", ...
  std::string_view scheme;
  /// One rank's collectives, parameters and kept activations when `scheme` (built with
  /// `options`) runs `shape` on `world_size` ranks, which it can: the scheme's cost_*()
  /// function with the grid sizes the scheme uses there.
  RankCost (*rank_cost)(const Scheme& scheme, const SchemeOptions& options, int world_size,
                        const BlockShape& shape, Workload workload) = nullptr;
  /// Korthikanti et al. 2022's bytes of activations one block keeps per rank (16-bit, with
  /// dropout) under each recomputation, for the schemes the paper covers; null for the others.
  double (*korthikanti_bytes)(const BlockShape& shape, int world_size, Recompute mode) = nullptr;
  /// What the scheme keeps fewer than the one it refines; null when it refines none.
  KeptSavings (*kept_savings)(const BlockShape& shape, int world_size, Workload workload) = nullptr;
  /// Elements the GPT of `shape` keeps for backward outside its blocks on each rank (the same on
  /// every rank) when `scheme` runs it on `world_size` ranks, as the scheme's GptLayout places
  /// its final LayerNorm, LM head and loss.
  std::int64_t (*gpt_parts_kept)(const Scheme& scheme, const SchemeOptions& options, int world_size,
                                 const gpt::GptShape& shape) = nullptr;
};

/// Every scheme's cost model, in the registry's order.
std::span<const SchemeCostModel> scheme_cost_models();

/// The cost model of scheme `name`; throws UsageError for a name the registry does not know.
const SchemeCostModel& cost_model_of(std::string_view name);

}  // namespace tplab::model
