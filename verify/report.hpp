/// @file
/// Printing a verification run as a table and as JSON.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace tplab::verify {

/// One row per tensor (name, shape, max_abs, rel_l2, atol, rtol, share of the tolerance used,
/// replicas, verdict with the worst element when it fails), and notes on zero gradients.
void print_tensor_table(const std::vector<TensorCheck>& tensors, std::FILE* out);

/// The run's heading, one row per tensor, the communication per rank, and its verdict.
void print_run(const RunResult& run, std::FILE* out);

/// {"scheme", "np", "backend", "dtype", "exact", "regather", "shape": {...}, "pass",
///  "tensors": [...], "comm": {"forward": [...], "backward": [...]}, "seconds": {...},
///  "saved_bytes"}
nlohmann::json to_json(const RunResult& run);

/// The communication record of one phase as JSON rows.
nlohmann::json comm_json(const std::vector<CollectiveCount>& counts);

}  // namespace tplab::verify
