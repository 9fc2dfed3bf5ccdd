// Lesson 12, the answer: f32 -> bf16 with round to nearest even, the rounding of CUDA's
// __float2bfloat16_rn, and a dot product with bf16 storage and f32 accumulation, as cuBLAS
// computes a bf16 GEMM with an f32 compute type. The CPU device has no bf16 of its own.
#include <bit>
#include <cmath>

#include "lesson.hpp"

namespace tplab::lessons::mixed_precision {

std::uint16_t to_bf16(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  // Truncating could turn a NaN with a low payload into infinity: keep its top half and set
  // the quiet bit, the top mantissa bit, which bf16 keeps.
  if (std::isnan(x)) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  // Adding 0x7FFF plus the last kept bit carries into the kept half exactly when the dropped
  // half is above 0x8000, or equal to it with an odd kept half (ties to even). A carry out of
  // the mantissa raises the exponent, as it should; out of the largest exponent it gives inf.
  const std::uint32_t last_kept = (bits >> 16) & 1u;
  return static_cast<std::uint16_t>((bits + 0x7FFFu + last_kept) >> 16);
}

float from_bf16(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

float dot_bf16(std::span<const float> a, std::span<const float> b) {
  float sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    // A product of two bf16 (8 significant bits each) has at most 16: it is exact in f32,
    // so only the additions round.
    sum += from_bf16(to_bf16(a[i])) * from_bf16(to_bf16(b[i]));
  }
  return sum;
}

}  // namespace tplab::lessons::mixed_precision
