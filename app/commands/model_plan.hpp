/// @file
/// `tplab model plan`: which DP x TP x PP trains a whole GPT fastest on a cluster.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "model_options.hpp"
#include "plan/cluster_plan.hpp"

namespace tplab::app {

/// What `tplab model plan` takes beyond the options it shares with `tplab model` (--seq,
/// --hidden, --heads, --gpus, --hardware, --hardware-file, --ranks-per-node, --scheme, --depth,
/// --recompute, --json, --detail).
struct PlanOptions {
  std::int64_t layers = 64;          ///< L, transformer blocks
  std::int64_t vocab = 51200;        ///< V
  std::int64_t global_batch = 512;   ///< B, sequences per optimizer step
  std::int64_t micro_batch = 1;      ///< b, sequences per micro-batch
  double efficiency = 0.5;           ///< share of the peak FLOP rate the matmuls reach
  std::optional<double> memory_gib;  ///< device memory, GiB (unset: the profile's)
  model::plan::RankOrder rank_order = model::plan::RankOrder::tp_pp_dp;  ///< (dp, pp, tp) order
  std::optional<std::string> plot;  ///< --plot: the PNG to draw (unset: none)
};

/// Adds `model plan` to `model`: which DP x TP x PP trains a whole GPT fastest on a cluster.
void add_model_plan_command(CLI::App& model, int& exit_code);

}  // namespace tplab::app
