/// @file
/// The verification harness: one scheme, world size, dtype and shape against the reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm_check.hpp"
#include "device/device.hpp"
#include "scheme/scheme.hpp"
#include "tensor_check.hpp"

namespace tplab::verify {

/// One verification run.
struct RunConfig {
  std::string scheme = "1d";
  SchemeOptions options;
  BlockShape shape{2, 16, 64, 4};
  DType dtype = DType::f64;
  std::uint64_t seed = 1;
  bool exact = false;  ///< integer inputs, linear pair only, zero tolerance
};

/// What one run found, complete on every rank.
struct RunResult {
  RunConfig config;
  int world_size = 0;
  std::string backend;  ///< e.g. "cpu/mpi"
  std::string grid;     ///< e.g. "q=2 d=2"
  std::vector<TensorCheck> tensors;
  std::vector<CollectiveCount> comm_forward, comm_backward;  ///< this rank's own
  /// This rank's collectives against the cost model (model/), which predicts them exactly.
  model::CommCheck comm;
  /// Every rank's collectives match the model; a run whose communication differs fails.
  bool comm_match = false;
  std::vector<int> comm_mismatch_ranks;  ///< the ranks whose collectives differ from the model
  double forward_seconds = 0, backward_seconds = 0;
  bool pass = false;  ///< every tensor passes and comm_match
};

/// Draws the global problem from the seed, shards it by the scheme's placements, runs forward
/// and backward, compares every output and gradient shard with the reference, and every rank's
/// collectives of each phase with the cost model's prediction. Collective
/// over `world`; throws UsageError (identically on every rank, before any collective) when
/// the scheme cannot run this configuration.
RunResult run_verification(Comm& world, Device& device, const RunConfig& config);

/// The names of the tensors a run compares, in report order: y, dx, then parameter gradients.
std::vector<std::string> checked_tensors(Workload workload);

}  // namespace tplab::verify
