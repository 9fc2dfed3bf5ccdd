/// @file
/// The collective micro-benchmark in nccl-tests' form: for each collective and message size,
/// the median time of tplab's Comm call and of the same MPI call made directly on the same
/// buffers, the algorithm and bus bandwidths, and an exact check of the result.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "collective_cases.hpp"
#include "comm/mpi_comm.hpp"
#include "device/device.hpp"
#include "step_timer.hpp"

namespace tplab::bench {

/// What to measure.
struct CollectiveBenchConfig {
  /// The collectives to time, by name, in this order.
  std::vector<std::string> collectives = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                          "reduce"};
  /// The smallest message, in bytes (sizes double from here).
  std::int64_t min_bytes = 8;
  /// The largest message, in bytes.
  std::int64_t max_bytes = std::int64_t{256} << 20;
  /// The element type of the messages (f32 or f64).
  DType dtype = DType::f32;
  int warmup = 2;  ///< untimed samples of each path before the timed ones
};

/// One line of the table: one collective at one message size.
struct CollectiveRow {
  /// The collective timed.
  Collective collective = Collective::all_reduce;
  std::int64_t bytes = 0;  ///< logical size N in bytes (the full result, as nccl-tests)
  std::int64_t count = 0;  ///< N in elements
  /// The element type of the message.
  DType dtype = DType::f32;
  /// The ranks taking part, p.
  int ranks = 0;
  Spread seconds;      ///< per call through tplab's Comm, the slowest rank's, over the samples
  Spread raw_seconds;  ///< per call of the same MPI function on the same buffers
  /// tplab's time over raw MPI's, minus 1: the median over samples of the ratio of each tplab
  /// sample to the raw sample taken beside it. Large messages on a shared machine take one of
  /// two very different times at random; a ratio of two medians then flips with the mode each
  /// median lands in, while the median of paired ratios stays at the wrapper's true cost.
  double overhead = 0;
  double algbw = 0;        ///< GB/s (1e9 bytes): bytes / median time
  double busbw = 0;        ///< algbw x bus_factor: what crosses each rank's link
  std::int64_t wrong = 0;  ///< elements, summed over ranks, that differ from the exact result
  /// Timed samples behind the medians.
  int samples = 0;
  /// Back-to-back calls in one sample (more for small messages, whose single call is too short
  /// for the clock).
  int calls_per_sample = 0;
};

/// Message sizes from min_bytes to max_bytes, doubling. Throws UsageError for a range that is
/// empty, starts below one element of `dtype` or ends above 1 GiB.
std::vector<std::int64_t> message_sizes(std::int64_t min_bytes, std::int64_t max_bytes,
                                        DType dtype);

/// Elements of the logical size for a request of `bytes`: whole elements, and for gathers and
/// scatters a multiple of the rank count (at least one per rank), as nccl-tests rounds.
std::int64_t element_count_for(Collective collective, std::int64_t bytes, DType dtype, int ranks);

/// Bytes one of `ranks` ranks allocates for `config`: one collective at a time holds its input
/// and output buffers at the largest size, each at most the logical size N (max_bytes) and
/// all_gather's and reduce_scatter's rounded up to whole elements per rank.
double collective_bench_bytes_per_rank(const CollectiveBenchConfig& config, int ranks);

/// Runs every collective of `config` at every size on `comm`, calling `on_row` on every rank
/// as each row is done (rank 0 prints it: the table is the sweep's progress). `raw` is the MPI
/// communicator of the same ranks, which the plain MPI calls compared against use. Collective
/// over `comm`.
std::vector<CollectiveRow> run_collective_bench(
    Comm& comm, MPI_Comm raw, Device& device, const CollectiveBenchConfig& config,
    const std::function<void(const CollectiveRow&)>& on_row);

/// The row as bench comm's JSON writes it: the times in microseconds (median, min, max), the
/// bandwidths, the check and the sampling.
nlohmann::json to_json(const CollectiveRow& r);

}  // namespace tplab::bench
