/// @file
/// TensorCheck: how one result tensor compares with the reference, over all ranks.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "core/tensor.hpp"
#include "host_array.hpp"
#include "scheme/placement.hpp"
#include "tolerance.hpp"

namespace tplab::verify {

/// The verdict on one tensor. Fields before merge() describe this rank's shard; after, all ranks.
struct TensorCheck {
  /// The tensor: "y", "d_wq", ...
  std::string name;
  /// Its global extents.
  Extents global;
  double max_abs = 0;  ///< max |got - ref|
  double rel_l2 = 0;   ///< ||got - ref|| / ||ref||
  /// The absolute and relative tolerance of an element: |got - ref| <= atol + rtol |ref|.
  ///@{
  double atol = 0, rtol = 0;
  ///@}
  double max_rel_l2 = 0;  ///< infinite where no L2 bound applies (a zero gradient)
  /// Largest share of the tolerance any element or the L2 used; infinite with a NaN or Inf.
  double share = 0;
  std::int64_t worst_index = -1;  ///< global row-major index of the element with that share
  /// The computed and the reference value of the worst element.
  ///@{
  double worst_got = 0, worst_ref = 0;
  ///@}
  std::int64_t nonfinite = 0;  ///< NaN or Inf elements
  /// Global row-major index of the first NaN or Inf element (-1: none).
  std::int64_t first_nonfinite = -1;
  int replicas = 1;               ///< ranks holding each block (1 when the tensor is sharded)
  std::string replicas_differ;    ///< empty, or which ranks hold different bits for one block
  int replica_first = -1;         ///< a rank whose replica another one differs from ...
  int replica_other = -1;         ///< ... and that other rank
  double replica_difference = 0;  ///< max |difference| between those two replicas
  /// Whether the tensor is within its tolerance everywhere, finite, and its replicas agree.
  bool pass = false;
  /// Where the worst element (or, with NaN or Inf, the first of those) lies, in words, when the
  /// caller knows the placement: "Y[3, 17] (block rows 0..7, cols 16..31, held by rank 1)".
  /// The lessons set it; empty, the table names the row-major index instead.
  std::string worst_where;
  /// Empty, or what arrived broken in the findings the ranks gathered: a NaN in any field, or
  /// an Inf where no error measure can hold one ("rank 1's max_abs is nan"). The checker's own
  /// data then says nothing, and the tensor fails.
  std::string checker_fault;

  std::uint64_t hash = 0;  ///< of this rank's shard's bits (kept by merging)
  /// Of every rank's shard's bits, in rank order: two runs that computed the same bits
  /// everywhere have the same fingerprint (a change that keeps every sum's order keeps it).
  std::uint64_t fingerprint = 0;
  // sums kept for merging shards
  /// Sums of (got - ref)^2 and ref^2 over the elements seen so far, for rel_l2.
  ///@{
  double sum_sq_diff = 0, sum_sq_ref = 0;
  ///@}
};

/// Compares a rank's shard `got` (values of the block `range`) with the global reference.
/// atol is tolerance.atol_scale times `scale`: the RMS of the reference tensor, or, for a
/// gradient that is zero in exact arithmetic, of its sibling (see ZeroGradient).
TensorCheck check_shard(const std::string& name, const HostArray& reference,
                        const BlockRange& range, std::span<const double> got,
                        const Tolerance& tolerance, double scale);

/// Root mean square of the values: the scale of a tensor.
double rms(const std::vector<double>& values);

/// Fields a rank sends so that every rank can merge the checks.
inline constexpr std::size_t kCheckFields = 11;
/// The fields of `c` another rank needs to merge it, as doubles.
std::array<double, kCheckFields> pack(const TensorCheck& c);
/// Folds rank `from`'s packed check into `c`. The largest error, share and the first NaN or
/// Inf are taken over every rank; the sums behind rel_l2 and the count of NaN or Inf only from
/// `first_holder`s, the first rank that holds each block, so that a block replicated on k
/// ranks counts once, not k times. A packed field that is NaN, or infinite where only an
/// error measure (max_abs, the sum of squared differences, the share) may overflow, sets
/// checker_fault instead of being folded in, where a comparison would silently drop it.
void merge(TensorCheck& c, std::span<const double> packed, bool first_holder, int from);
/// The hash a packed check carries.
std::uint64_t packed_hash(std::span<const double> packed);
/// Sets rel_l2, share and pass from the merged sums (and the replica comparison). A NaN in
/// the sums fails the tensor; so does a checker_fault.
void finish(TensorCheck& c);

/// FNV-1a over the bits of the values: equal hashes mean bitwise-equal replicas.
std::uint64_t bit_hash(std::span<const double> values);

/// FNV-1a over the ranks' shard hashes, in rank order: the fingerprint of a whole tensor.
std::uint64_t fingerprint_of(std::span<const std::uint64_t> rank_hashes);

}  // namespace tplab::verify
