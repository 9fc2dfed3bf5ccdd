/// @file
/// The global size of one Transformer block and the names of its tensors.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/tensor.hpp"

namespace tplab {

/// Global problem size: b batch, s sequence, h hidden, n heads; m = b*s tokens.
struct BlockShape {
  std::int64_t b = 0;                                  ///< batch: sequences
  std::int64_t s = 0;                                  ///< sequence length
  std::int64_t h = 0;                                  ///< hidden size
  std::int64_t heads = 0;                              ///< attention heads n
  std::int64_t tokens() const { return b * s; }        ///< m = b*s
  std::int64_t head_dim() const { return h / heads; }  ///< h/n
  std::int64_t ffn() const { return 4 * h; }           ///< the MLP's width, 4h
  /// Equal in every extent.
  bool operator==(const BlockShape&) const = default;
};

/// "b=2 s=16 h=64 heads=4".
std::string to_string(const BlockShape& shape);

/// The smallest hidden size tplab accepts. With h = 1 LayerNorm's output is beta whatever x
/// is, with h = 2 it is +-1 up to eps: gradients through it vanish.
inline constexpr std::int64_t kMinHidden = 4;

/// Parses "b,s,h,heads"; throws UsageError on malformed values or a shape_problem().
BlockShape parse_block_shape(std::string_view text);

/// Empty for a usable shape; otherwise what is wrong with it (a non-positive size, h below
/// kMinHidden, h not divisible by heads, or tensors too large to count in 64-bit integers).
std::string shape_problem(const BlockShape& shape);

/// Whether 8 bytes times the product of `factors` (all positive) fits in std::int64_t: the
/// byte count of an f64 tensor of that many elements, which tplab computes in 64-bit integers.
bool f64_bytes_fit_int64(std::initializer_list<std::int64_t> factors);

/// The parameters of a block, in the order reports list them.
inline constexpr std::array<std::string_view, 16> kBlockParameters = {
    "ln1_gamma", "ln1_beta", "wq",        "bq",       "wk", "bk", "wv", "bv",
    "wo",        "bo",       "ln2_gamma", "ln2_beta", "w1", "b1", "w2", "b2"};

/// The parameters of the linear pair Y = (X W1 + b1) W2 + b2 used by exact checks.
inline constexpr std::array<std::string_view, 4> kLinearPairParameters = {"w1", "b1", "w2", "b2"};

/// The name of a parameter's gradient: "wq" -> "d_wq".
std::string gradient_name(std::string_view parameter);

/// Global extents of a block tensor: "x", "dy", "y", "dx" are [m, h]; weights [in, out];
/// biases and LayerNorm parameters [n]; a gradient has its parameter's extents.
Extents global_extents(std::string_view tensor, const BlockShape& shape);

}  // namespace tplab
