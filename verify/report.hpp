/// @file
/// Printing a verification run as a table and as JSON.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace tplab::verify {

/// The share of the tolerance a tensor used, as the tables print it: "3%", "240%", "2.3e+05%"
/// from 10000% on, "NaN/Inf" when it holds one (no share of a tolerance describes that), and
/// "inf" when its tolerance is 0 (exact mode) and its error is not.
std::string tolerance_used_text(double share, bool nonfinite);

/// One row per tensor (name, shape, max_abs, rel_l2, atol, rtol, share of the tolerance used,
/// replicas, verdict with the worst element when it fails), and notes on zero gradients.
void print_tensor_table(const std::vector<TensorCheck>& tensors, std::FILE* out);

/// The run's heading, one row per tensor, the communication per rank beside the cost model's,
/// and its verdict.
void print_run(const RunResult& run, std::FILE* out);

/// The summary table of verify's runs (each as to_json writes it, with its "hosts"): one line
/// a run with its largest tolerance share and relative error, kept bytes, the cost model's
/// verdict on its communication and its own.
void print_summary(const nlohmann::json& runs, std::FILE* out);

/// {"scheme", "np", "grid", "backend", "dtype", "exact", "regather", "shape": {...}, "pass",
///  "tensors": [...], "comm": [...], "comm_match", "comm_mismatch_ranks", "comm_phases":
///  {"forward": [...], "backward": [...]}, "seconds": {...}, "saved_bytes" (measured),
///  "saved_bytes_model", "kept_match", "kept_mismatch_ranks", "checker_faults"}; "comm" holds
///  forward + backward per collective and group, each phase of "comm_phases" the same rows for that
///  phase alone.
nlohmann::json to_json(const RunResult& run);

/// Every tensor's verdict as a JSON row: "name", "shape", "max_abs", "rel_l2", "atol", "rtol",
/// "max_rel_l2", "tolerance_used", "worst_index", "nonfinite", "replicas", "replicas_identical",
/// "replica_max_difference", "bits" (the fingerprint of every rank's shard), "pass"; a
/// non-finite error as null.
nlohmann::json tensors_json(const std::vector<TensorCheck>& tensors);

/// Collectives against the model as JSON rows: "collective", "op" (the reduction, null where it
/// reduces nothing), "root" (null where it has none), "group", "group_size", "calls",
/// "elements", "bytes", "bus_elements", "seconds" (measured), "model_group_size",
/// "model_calls", "model_elements", "match".
nlohmann::json comm_json(const std::vector<model::CommComparison>& rows);

}  // namespace tplab::verify
