/// @file
/// The collectives as benchmark cases: for each one, the buffers it needs, inputs whose
/// reduction is exact, the result each element must hold, and the call through tplab's Comm
/// beside the same call made on MPI directly. After nccl-tests, where each collective is one
/// small description plugged into one shared harness (collective_bench.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "comm/comm.hpp"

namespace tplab::bench {

/// One collective, described for the harness. n is the logical size in elements (the full
/// result, as nccl-tests counts it), p the number of ranks, r this rank.
struct CollectiveCase {
  Collective collective = Collective::all_reduce;  ///< which one
  /// Elements of this rank's input buffer.
  std::int64_t (*input_count)(std::int64_t n, int p);
  /// Elements of its output buffer; 0 when the collective works in place on the input (the
  /// output is then the input).
  std::int64_t (*output_count)(std::int64_t n, int p);
  /// The exact value output element j must hold on rank r; only called where checked().
  double (*expected)(int r, int p, std::int64_t n, std::int64_t j);
  /// Whether rank r's output is defined (reduce: only the root's).
  bool (*checked)(int r);
  /// The collective through tplab's Comm, counted and timed as in a training step.
  void (*through_tplab)(Comm& comm, Tensor& input, Tensor& output);
  /// The same collective on MPI directly, on the same buffers: the baseline.
  void (*through_mpi)(MPI_Comm comm, Tensor& input, Tensor& output);
};

/// The value rank r puts at element i of its input: a small integer (-6..6), so every sum
/// over up to a million ranks is exact in f32 and the check can demand equality.
double crafted_input(int r, std::int64_t i);

/// The five collectives tplab uses, in nccl-tests' order.
const std::vector<CollectiveCase>& collective_cases();

/// The case of `name` ("all_reduce", ...); throws UsageError naming the known ones otherwise.
const CollectiveCase& find_collective_case(std::string_view name);

}  // namespace tplab::bench
