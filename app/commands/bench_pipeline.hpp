/// @file
/// What bench step and bench scaling add for a pipelined GPT (--pp): each run's stages in its
/// JSON record and under its line, and the pipeline's efficiency against one stage doing the
/// whole model on 1/S of the ranks, beside the bubble's formula.
#pragma once

#include <nlohmann/json.hpp>

#include "pipeline_timer.hpp"

namespace tplab::app {

/// The fields a pipelined run adds to its record: "workload": "gpt", pp, micro_batches,
/// schedule, layers, vocab, padded_vocab, bubble_formula, comm_ms_pp, bytes_per_rank_pp beside
/// model_bytes_per_rank_pp and pp_transfers_as_modelled, "stages" (each stage's idle_share,
/// kept_bytes, model_kept_bytes, in_flight) and kept_as_modelled.
nlohmann::json pipeline_fields(const bench::PipelineTiming& t);

/// Under the run's line (rank 0): each stage's idle share beside the formula, and what it kept
/// for backward beside the model.
void print_pipeline_run(const nlohmann::json& record);

/// Adds PP efficiency to every run of S > 1 stages: the step time of its baseline (the same
/// GPT, replicas and micro-batches on one stage of np/S ranks) over S times its own. With no
/// cost but the bubble it is 1 - (S - 1)/(M + S - 1) = M / (M + S - 1), which it is set beside.
/// Every run says whether it is such a baseline.
void add_pipeline_efficiency(nlohmann::json& runs);

/// One line per pipelined run of the sweep: its stages' idle shares, the formula, the time on
/// the point-to-point transfers and its PP efficiency against its baseline.
void print_pipeline_lines(const nlohmann::json& runs);

}  // namespace tplab::app
