/// @file
/// Timing one training step (forward + backward of a block) of a scheme, with warm-up,
/// repeats and medians, and the share of it spent inside collectives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/scheme.hpp"

namespace tplab::bench {

/// What to time.
struct StepConfig {
  std::string scheme = "1d";
  SchemeOptions options;
  BlockShape shape{4, 256, 1024, 16};
  DType dtype = DType::f32;
  int warmup = 1;
  int repeats = 5;
  std::uint64_t seed = 1;
};

/// Median, fastest and slowest of some samples.
struct Spread {
  double median = 0, min = 0, max = 0;
};
Spread spread_of(std::vector<double> samples);

/// The timing of one configuration, the same on every rank. A step's time is the slowest
/// rank's; its communication time is the slowest rank's time inside collectives.
struct StepTiming {
  StepConfig config;
  int world_size = 0;
  Spread step_seconds;
  Spread comm_seconds;
  /// The least time any rank spent inside collectives. A rank that reaches a collective last
  /// does not wait there, so this holds less of the waiting for slower ranks than
  /// comm_seconds, and comes nearer the transfers alone.
  Spread comm_seconds_least;
  double comm_share = 0;            ///< median comm time / median step time
  std::int64_t bytes_per_rank = 0;  ///< logical bytes of this rank's collectives per step
  double flops = 0;                 ///< of the whole step, all ranks (model::block_step_flops)
  double gflops_per_second = 0;     ///< flops / median step time
  double tokens_per_second = 0;
};

/// Runs warm-up steps, then `repeats` timed steps. Collective over `world`.
StepTiming time_step(Comm& world, Device& device, const StepConfig& config);

/// The single-device reference's time for the same step (median of `repeats` after warm-up),
/// in f64 or f32 as `config.dtype` says, on this process alone.
Spread time_reference_step(const StepConfig& config);

}  // namespace tplab::bench
