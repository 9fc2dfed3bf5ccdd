#include "tensor_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace tplab::verify {
namespace {

/// How far the worst element found so far is from the reference. Among elements that use the
/// same share of the tolerance (every wrong one, when the tolerance is zero), the farthest off
/// is the worst.
double worst_diff(const TensorCheck& c) {
  return std::abs(c.worst_got - c.worst_ref);
}

/// FNV-1a's starting value.
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;

/// FNV-1a: `h` with the 8 bytes of `word` folded in, lowest byte first.
std::uint64_t fnv1a(std::uint64_t h, std::uint64_t word) {
  for (int byte = 0; byte < 8; ++byte) {
    h ^= (word >> (8 * byte)) & 0xff;
    h *= 0x100000001b3ull;
  }
  return h;
}

/// The packed fields, in pack()'s order, by the names a message gives them.
constexpr std::array<const char*, kCheckFields> kFieldNames = {"max_abs",
                                                               "sum of squared differences",
                                                               "sum of squared references",
                                                               "share",
                                                               "worst index",
                                                               "worst value",
                                                               "worst reference",
                                                               "NaN/Inf count",
                                                               "first NaN/Inf index",
                                                               "hash (high half)",
                                                               "hash (low half)"};

/// An error measure that grows past every double has overflowed to +Inf and fails the tensor
/// as it should; every other field is finite in findings that arrived intact.
bool may_be_infinite(std::size_t field) {
  return field == 0 || field == 1 || field == 3;
}

/// The first field of `packed` that no intact findings hold, in words; empty when all are.
std::string broken_field(std::span<const double> packed, int from) {
  for (std::size_t f = 0; f < kCheckFields; ++f) {
    const double v = packed[f];
    if (std::isnan(v) || (std::isinf(v) && !(may_be_infinite(f) && v > 0))) {
      return fmt::format("rank {}'s {} is {}", from, kFieldNames[f], v);
    }
  }
  return {};
}

}  // namespace

double rms(const std::vector<double>& values) {
  double s = 0;
  for (double x : values) s += x * x;
  return values.empty() ? 0.0 : std::sqrt(s / static_cast<double>(values.size()));
}

TensorCheck check_shard(const std::string& name, const HostArray& reference,
                        const BlockRange& range, std::span<const double> got,
                        const Tolerance& tolerance, double scale) {
  check(static_cast<std::int64_t>(got.size()) == range.rows * range.cols,
        "shard of " + name + " does not match its placement");
  TensorCheck c;
  c.name = name;
  c.global = reference.extents;
  c.atol = tolerance.atol_scale * scale;
  c.rtol = tolerance.rtol;
  c.max_rel_l2 = tolerance.max_rel_l2;
  const std::int64_t global_cols = reference.extents.back();
  const std::vector<double> expected = reference.block(range);
  c.hash = bit_hash(got);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::int64_t r = static_cast<std::int64_t>(i) / range.cols;
    const std::int64_t col = static_cast<std::int64_t>(i) % range.cols;
    const std::int64_t index = (range.row0 + r) * global_cols + range.col0 + col;
    if (!std::isfinite(got[i])) {
      if (c.nonfinite++ == 0) c.first_nonfinite = index;
      continue;
    }
    const double diff = std::abs(got[i] - expected[i]);
    c.max_abs = std::max(c.max_abs, diff);
    c.sum_sq_diff += diff * diff;
    c.sum_sq_ref += expected[i] * expected[i];
    const double allowed = c.atol + c.rtol * std::abs(expected[i]);
    const double share = allowed > 0 ? diff / allowed : (diff > 0 ? INFINITY : 0.0);
    if (share > c.share || c.worst_index < 0 || (share == c.share && diff > worst_diff(c))) {
      c.share = std::max(c.share, share);
      c.worst_index = index;
      c.worst_got = got[i];
      c.worst_ref = expected[i];
    }
  }
  return c;
}

std::uint64_t bit_hash(std::span<const double> values) {
  std::uint64_t h = kFnvOffset;
  for (double v : values) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    h = fnv1a(h, bits);
  }
  return h;
}

std::uint64_t fingerprint_of(std::span<const std::uint64_t> rank_hashes) {
  std::uint64_t h = kFnvOffset;
  for (std::uint64_t v : rank_hashes) h = fnv1a(h, v);
  return h;
}

std::array<double, kCheckFields> pack(const TensorCheck& c) {
  // The hash travels as two 32-bit halves, which doubles hold exactly.
  return {c.max_abs,
          c.sum_sq_diff,
          c.sum_sq_ref,
          c.share,
          static_cast<double>(c.worst_index),
          c.worst_got,
          c.worst_ref,
          static_cast<double>(c.nonfinite),
          static_cast<double>(c.first_nonfinite),
          static_cast<double>(c.hash >> 32),
          static_cast<double>(c.hash & 0xffffffffull)};
}

std::uint64_t packed_hash(std::span<const double> p) {
  return (static_cast<std::uint64_t>(p[9]) << 32) | static_cast<std::uint64_t>(p[10]);
}

void merge(TensorCheck& c, std::span<const double> p, bool first_holder, int from) {
  if (std::string broken = broken_field(p, from); !broken.empty()) {
    if (c.checker_fault.empty()) c.checker_fault = std::move(broken);
    return;
  }
  c.max_abs = std::max(c.max_abs, p[0]);
  if (first_holder) {
    c.sum_sq_diff += p[1];
    c.sum_sq_ref += p[2];
  }
  if (p[3] > c.share || (p[3] == c.share && std::abs(p[5] - p[6]) > worst_diff(c))) {
    c.share = p[3];
    c.worst_index = static_cast<std::int64_t>(p[4]);
    c.worst_got = p[5];
    c.worst_ref = p[6];
  }
  const auto other_nonfinite = static_cast<std::int64_t>(p[7]);
  const auto other_first = static_cast<std::int64_t>(p[8]);
  if (other_nonfinite > 0 && (c.first_nonfinite < 0 || other_first < c.first_nonfinite)) {
    c.first_nonfinite = other_first;
  }
  if (first_holder) c.nonfinite += other_nonfinite;
}

void finish(TensorCheck& c) {
  c.rel_l2 = c.sum_sq_ref > 0 ? std::sqrt(c.sum_sq_diff / c.sum_sq_ref)
                              : (c.sum_sq_diff > 0 ? INFINITY : 0.0);
  double l2_share = 0;
  if (std::isfinite(c.max_rel_l2)) {
    l2_share = c.max_rel_l2 > 0 ? c.rel_l2 / c.max_rel_l2 : (c.rel_l2 > 0 ? INFINITY : 0.0);
  }
  if (!(l2_share <= c.share)) c.share = l2_share;  // a NaN is kept, where std::max drops it
  // no tolerance holds a NaN or an Inf, nor sums that lost their meaning
  if (c.nonfinite > 0 || std::isnan(c.share)) c.share = INFINITY;
  c.pass =
      c.nonfinite == 0 && c.share <= 1.0 && c.replicas_differ.empty() && c.checker_fault.empty();
}

}  // namespace tplab::verify
