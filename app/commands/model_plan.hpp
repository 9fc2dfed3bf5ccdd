/// @file
/// `tplab model --plan`: which DP x TP x PP trains a whole GPT fastest on a cluster. The
/// options it adds to `tplab model`, and the run.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "model_options.hpp"

namespace tplab::app {

/// What `tplab model --plan` takes beyond the options of `tplab model` it shares (--hidden,
/// --heads, --seq, --gpus, --hardware, --hardware-file, --ranks-per-node, --scheme, --depth,
/// --json, --detail).
struct PlanOptions {
  bool plan = false;                    ///< --plan: plan a cluster rather than project one block
  std::int64_t layers = 64;             ///< L, transformer blocks
  std::int64_t vocab = 51200;           ///< V
  std::int64_t global_batch = 512;      ///< B, sequences per optimizer step
  std::int64_t micro_batch = 1;         ///< b, sequences per micro-batch
  double efficiency = 0.5;              ///< share of the peak FLOP rate the matmuls reach
  std::optional<double> memory_gib;     ///< device memory, GiB (unset: the profile's)
  std::string rank_order = "tp-pp-dp";  ///< how world ranks map to (dp, pp, tp)
  std::optional<std::string> plot;      ///< --plot: the PNG to draw (unset: none)
};

/// Adds --plan and the options only it takes to `command` (`tplab model`), each requiring
/// --plan, and --plan excluding what it does not use (--batch, --shape, --calibrate,
/// --compare); call after the command's other options are added.
void add_plan_options(CLI::App& command, PlanOptions& plan);

/// Runs `tplab model --plan` as `command` parsed it; returns the exit code (0), or throws
/// UsageError for input no plan can be made from.
int run_plan(const CLI::App& command, const ModelOptions& model, const PlanOptions& plan);

}  // namespace tplab::app
