/// @file
/// bfloat16 on the host: rounding to and widening from the 16-bit storage format.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace tplab {

/// The bits of a bfloat16: the upper half of an IEEE f32 (1 sign, 8 exponent, 7 fraction bits).
using Bf16Bits = std::uint16_t;

/// The f32 value of a bfloat16 (exact: every bfloat16 is an f32).
inline float float_from_bf16(Bf16Bits bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// The nearest bfloat16 to an f32, ties to even (as __float2bfloat16 on the GPU). NaN stays a
/// (quiet) NaN; values beyond the largest bfloat16 round to infinity.
inline Bf16Bits bf16_from_float(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<Bf16Bits>((bits >> 16) | 0x0040u);
  const std::uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<Bf16Bits>((bits + 0x7fffu + lsb) >> 16);
}

/// The nearest bfloat16 to an f64, ties to even. Rounding to f32 first could land exactly on a
/// halfway point between two bfloat16s that the f64 value is not on (double rounding); that
/// case is decided by the side of the halfway point the f64 value lies on.
inline Bf16Bits bf16_from_double(double value) {
  const float f = static_cast<float>(value);
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if (std::isfinite(f) && (bits & 0xffffu) == 0x8000u && static_cast<double>(f) != value) {
    const Bf16Bits below = static_cast<Bf16Bits>(bits >> 16);  // toward zero
    const bool beyond = std::abs(value) > std::abs(static_cast<double>(f));
    return beyond ? static_cast<Bf16Bits>(below + 1) : below;
  }
  return bf16_from_float(f);
}

/// to[i] = the f32 value of the bfloat16 from[i], for every i of `from` (exact).
inline void widen_bf16(std::span<const Bf16Bits> from, std::span<float> to) {
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = float_from_bf16(from[i]);
}

/// to[i] = the bfloat16 nearest the f32 from[i], ties to even, for every i of `from`.
inline void round_to_bf16(std::span<const float> from, std::span<Bf16Bits> to) {
  for (std::size_t i = 0; i < from.size(); ++i) to[i] = bf16_from_float(from[i]);
}

}  // namespace tplab
