/// @file
/// Timing one training step (forward + backward of a block) of a scheme, with warm-up,
/// repeats and medians, and the share of it spent inside collectives.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "memory_breakdown.hpp"
#include "scheme/scheme.hpp"

namespace tplab::bench {

/// What to time.
struct StepConfig {
  /// The scheme, by its name in the registry (scheme_names()): "1d", "2.5d", ...
  std::string scheme = "1d";
  /// 2.5D's depth, 3D's regathering.
  SchemeOptions options;
  /// The global block: b, s, h, n.
  BlockShape shape{4, 256, 1024, 16};
  /// The element type of every tensor.
  DType dtype = DType::f32;
  /// Untimed steps before the timed ones.
  int warmup = 1;
  /// Timed steps.
  int repeats = 5;
  /// Seed of the inputs, the same on every rank.
  std::uint64_t seed = 1;
};

/// Median, fastest and slowest of some samples.
struct Spread {
  /// Median, fastest and slowest sample.
  ///@{
  double median = 0, min = 0, max = 0;
  ///@}
};
/// The median, least and greatest of `samples`; throws InternalError when there are none.
Spread spread_of(std::vector<double> samples);

/// The timing of one configuration, the same on every rank. A step's time is the slowest
/// rank's; its communication time is the slowest rank's time inside collectives; bytes and
/// memory are the largest of any rank.
struct StepTiming {
  /// What was timed.
  StepConfig config;
  /// p, the number of ranks.
  int world_size = 0;
  std::string grid;  ///< "t=2", "q=2 d=2", ...
  /// A step's time: the slowest rank's, per step.
  Spread step_seconds;
  /// Time inside collectives: the slowest rank's, per step.
  Spread comm_seconds;
  /// The least time any rank spent inside collectives. A rank that reaches a collective last
  /// does not wait there, so this holds less of the waiting for slower ranks than
  /// comm_seconds, and comes nearer the transfers alone.
  Spread comm_seconds_least;
  /// The time the slowest rank was blocked in collectives (CommCounters' exposed time): equal
  /// to comm_seconds without overlap; with it, what the computation did not hide.
  Spread exposed_seconds;
  /// The part of the time inside collectives spent on the data-parallel groups (the gradient
  /// reduction over the replicas, group kDataParallelGroup): the slowest rank's, per step. Zero
  /// without data parallelism; the rest of comm_seconds is the scheme's own.
  Spread dp_comm_seconds;
  /// The rest: time in the scheme's own collectives, the slowest rank's, per step.
  Spread scheme_comm_seconds;
  double comm_share = 0;               ///< median comm time / median step time
  std::int64_t bytes_per_rank = 0;     ///< logical bytes (N, as nccl-tests) of a rank's collectives
  std::int64_t dp_bytes_per_rank = 0;  ///< the part of bytes_per_rank on the DP groups
  double bus_bytes_per_rank = 0;       ///< the same times each collective's bus factor: what
                                       ///< crosses a rank's link in ring algorithms
  double flops = 0;                    ///< of the whole step, all ranks (model::block_step_flops)
  double gflops_per_second = 0;        ///< flops / median step time
  /// m = b*s tokens over the median step time.
  double tokens_per_second = 0;
  /// Peak resident memory of a rank while stepping (VmHWM, reset once the rank holds its
  /// shards and has freed the global inputs), or from the start of the process when the kernel
  /// refused the reset (peak_memory_from_start).
  std::int64_t peak_memory_bytes = 0;
  /// Whether peak_memory_bytes counts from the start of the process (the kernel refused the reset).
  bool peak_memory_from_start = false;
  /// The rank's memory by kind, measured on the device in one more step after the timed ones,
  /// beside the cost model's: parameters, gradients, what forward keeps (no optimizer runs
  /// here, so its state is 0), the allocator's peak in that step and VmHWM; the largest of any
  /// rank.
  verify::MemoryBreakdown memory;
  /// The smallest share of a core any rank got during the timed steps (CPU time over wall
  /// time). About 1 on a quiet machine; cores/ranks when oversubscribed; lower when other
  /// processes were running, and then the times are not the scheme's.
  double cpu_share = 0;
};

/// One timed step as one rank measured it.
struct RankStep {
  double seconds = 0;          ///< wall time
  double cpu_seconds = 0;      ///< the process's CPU time in it
  double comm_seconds = 0;     ///< in communication
  double exposed_seconds = 0;  ///< of which blocked in it (CommCounters' exposed time)
  double dp_seconds = 0;       ///< of comm_seconds, on the data-parallel groups
  /// Of comm_seconds, neither the scheme's nor dp's: the transfers between pipeline stages.
  double other_seconds = 0;
};

/// The timed steps of a run, the slowest rank's of each, until they make a StepTiming.
class StepSamples {
 public:
  /// Adds one timed step. Collective.
  void add(Comm& world, const RankStep& step);
  /// Keeps what `counters` counted in a step: its logical, data-parallel and bus bytes (every
  /// step moves the same).
  void count(const CommCounters& counters);
  /// Fills `t`'s times, shares, bytes, rates, peak memory and CPU share; t.flops must be set.
  /// `tokens`: of the step; `peak_reset`: whether the peak memory counts from after setup.
  /// Collective.
  void fill(Comm& world, std::int64_t tokens, bool peak_reset, StepTiming& t) const;

 private:
  std::vector<double> steps_, comms_, comms_least_, exposed_, dp_comms_, scheme_comms_;
  std::int64_t bytes_ = 0, dp_bytes_ = 0;
  double bus_bytes_ = 0, wall_seconds_ = 0, cpu_seconds_ = 0;
};

/// Bytes one rank of a timed step needs, about: the global inputs in f64 while it cuts its
/// shards, then, for each of `modules` modules (2 when overlap off and on are compared), its
/// parameters, their gradients and one more copy (3 x the cost model's parameter elements)
/// and twice what it keeps from forward for backward (its activation elements), in the step's
/// dtype. A rank that also times the reference needs verify_bytes_per_rank more.
double step_bytes_per_rank(const StepConfig& config, int world_size, int modules);

/// Runs warm-up steps, then `repeats` timed steps. Collective over `world`.
StepTiming time_step(Comm& world, Device& device, const StepConfig& config);

/// Exposed communication with overlap off and on, measured in one run: the steps of a module
/// without overlap and of one with it alternate, so that both see the same machine. Medians of
/// the slowest rank's values.
struct OverlapComparison {
  Spread step_off;     ///< step time, overlap off
  Spread step_on;      ///< step time, overlap on
  Spread exposed_off;  ///< time blocked in collectives, overlap off
  Spread exposed_on;   ///< time blocked in collectives, overlap on
};

/// Runs `config` (whatever its options.overlap) with overlap off and on, warm-up steps first,
/// then `repeats` timed steps of each, alternating. Collective over `world`.
OverlapComparison compare_overlap(Comm& world, Device& device, const StepConfig& config);

/// Recomputation's cost and saving, measured in one run: a step of each mode (none, selective,
/// full, in that order) in turn, so that all three see the same machine. Bytes are the device's
/// own account (Device::allocations), the most of any rank.
struct RecomputeComparison {
  static constexpr int kModes = 3;  ///< none, selective, full
  std::array<Spread, kModes> step;  ///< step time, the slowest rank's
  /// What forward left for backward: storage live after forward that was not before it, the
  /// block's input counted where the block keeps it (as verify measures it).
  std::array<std::int64_t, kModes> kept_bytes{};
  /// The cost model's kept bytes (RankCost::activation_elements), beside the measured.
  std::array<std::int64_t, kModes> model_kept_bytes{};
  /// The high-water mark of live storage during the step, above what was live before it.
  std::array<std::int64_t, kModes> peak_bytes{};
  /// The step's FLOPs, with what the mode computes again (model::recompute_flops).
  std::array<double, kModes> flops{};
};

/// Runs `config` (whatever its options.training.recompute) in the three modes: warm-up steps
/// first, then `repeats` timed steps of each, in turn. Collective over `world`.
RecomputeComparison compare_recompute(Comm& world, Device& device, const StepConfig& config);

/// The single-device reference's time for the same step (median of `repeats` after warm-up),
/// in f64 or f32 as `config.dtype` says, on this process alone.
Spread time_reference_step(const StepConfig& config);

}  // namespace tplab::bench
