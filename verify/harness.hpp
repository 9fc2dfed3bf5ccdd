/// @file
/// The verification harness: one scheme, world size, dtype and shape against the reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "comm_check.hpp"
#include "device/device.hpp"
#include "host_array.hpp"
#include "rank_shards.hpp"
#include "run_property.hpp"
#include "scheme/scheme.hpp"
#include "tensor_check.hpp"

namespace tplab::verify {

/// One verification run.
struct RunConfig {
  /// The scheme, by its name in the registry (scheme_names()): "1d", "2.5d", ...
  std::string scheme = "1d";
  /// 2.5D's depth, 3D's regathering.
  SchemeOptions options;
  /// The global block: b, s, h, n.
  BlockShape shape{2, 16, 64, 4};
  /// The element type the scheme computes in.
  DType dtype = DType::f64;
  /// Seed of the inputs, parameters and output gradient, the same on every rank.
  std::uint64_t seed = 1;
  bool exact = false;         ///< integer inputs, linear pair only, zero tolerance
  bool check_finite = false;  ///< stop at the first stage of the block that makes a NaN or Inf
  /// x drawn around +kShiftedInputMean (Values::shifted) instead of 0, so that a LayerNorm
  /// whose variance cancels fails; ignored by exact runs, whose inputs are integers. For f64
  /// and h >= kShiftedInputMinHidden only (run_verification refuses others): in f32, rounding
  /// x itself (by up to 20 * 2^-24) is an error of 2e-6 relative to x's spread, which the
  /// block amplifies past f32's tolerance.
  bool shifted_input = false;
  /// bk scaled (raise_attention_scores) so that the row shifts q_i . bk / sqrt(d) reach
  /// kScoreReachOverOverflow times the point where exp overflows in this dtype: a softmax
  /// without the shift by its row's maximum makes Inf and NaN there. dy is 0, so every gradient
  /// must be exactly 0 (see raise_attention_scores for why). Ignored by exact runs.
  /// f64 and f32 only (run_verification refuses bf16): bf16 keeps 8 bits of a score, so one
  /// past 88 is off by up to 0.17 and its exponential by 19%, beyond any softmax's tolerance.
  bool large_scores = false;
};

/// What one run found, complete on every rank.
struct RunResult {
  /// What was run.
  RunConfig config;
  /// p, the number of ranks.
  int world_size = 0;
  std::string backend;  ///< e.g. "cpu/mpi"
  std::string grid;     ///< e.g. "q=2 d=2"
  /// The largest |q_i . k_j| / sqrt(d) of the inputs, over visible keys (0 unless large_scores).
  double largest_score = 0;
  /// The verdict on every output and gradient, merged over all ranks.
  std::vector<TensorCheck> tensors;
  /// The collectives of forward and of backward, as the counters recorded them.
  ///@{
  std::vector<CollectiveCount> comm_forward, comm_backward;  ///< this rank's own
  ///@}
  /// This rank's collectives against the cost model (model/), which predicts them exactly.
  model::CommCheck comm;
  /// Where each property of the run (run_property.hpp: its collectives and kept bytes against
  /// the model, a recomputing run's bits against the run that keeps everything) does not hold;
  /// a run where one does not hold on some rank fails.
  PropertyVerdicts properties;
  /// Wall time of forward and of backward on this rank.
  ///@{
  double forward_seconds = 0, backward_seconds = 0;
  ///@}
  /// Kept from forward for backward, measured (KeptBytesProbe), on the rank that keeps most.
  std::size_t saved_bytes = 0;
  /// The same as the cost model predicts it, for the rank that keeps most
  /// (RankCost::activation_elements in this dtype); each rank's measurement is checked against
  /// the model's for that rank (RankCost::activation_elements_of).
  std::size_t saved_bytes_model = 0;
  /// With recomputation, this rank's first tensor whose bits differ from the same run that keeps
  /// everything (Recompute::none), or empty.
  std::string recompute_first_difference;
  /// Values of the checker's own data that arrived broken, on any rank: a NaN among the
  /// findings, byte counts or verdicts the ranks gathered or reduced. Any one fails the run.
  std::vector<std::string> checker_faults;
  /// Every tensor passes on every rank, every property holds on every rank, and no
  /// checker_faults.
  bool pass = false;
};

/// One tensor a rank compares with the reference: its shard, as the placement cuts it.
struct ShardToCheck {
  /// The tensor: "y", "d_wq", ...
  std::string name;
  const HostArray* reference = nullptr;        ///< the whole global tensor
  const TensorPlacement* placement = nullptr;  ///< which block each rank holds
  std::vector<double> got;                     ///< this rank's shard, row-major, as f64
  /// The tolerance of its dtype.
  Tolerance tolerance;
  double scale = 0;  ///< atol is tolerance.atol_scale times this (the reference's RMS)
};

/// Compares every rank's shards with the reference and merges the findings of all ranks:
/// max_abs, rel_l2, the worst element, NaN/Inf, and whether replicas hold the same bits.
/// Collective over `world`; every rank gets the same checks, in the order of `shards`.
std::vector<TensorCheck> compare_shards(Comm& world, const std::vector<ShardToCheck>& shards);

/// Draws the global problem from the seed, shards it by the scheme's placements, runs forward
/// and backward, compares every output and gradient shard with the reference, and every rank's
/// collectives of each phase with the cost model's prediction. Collective
/// over `world`; throws UsageError (identically on every rank, before any collective) when
/// the scheme cannot run this configuration.
RunResult run_verification(Comm& world, Device& device, const RunConfig& config);

/// Bytes one rank of a verification run needs, about: every rank holds the whole global
/// problem and the reference's answer in f64 (inputs, parameters, outputs, gradients, and the
/// reference's saved activations, attention scores included), which dwarfs its own shards.
double verify_bytes_per_rank(const BlockShape& shape);

/// The names of the tensors a run compares, in report order: y, dx, then parameter gradients.
std::vector<std::string> checked_tensors(Workload workload);

}  // namespace tplab::verify
