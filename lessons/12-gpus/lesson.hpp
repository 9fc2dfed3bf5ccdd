/// @file
/// Lesson 12: GPUs, bf16 and what mixed precision does to agreement. The functions the
/// exercise fills in; they run on the CPU.
#pragma once

#include <cstdint>
#include <span>

namespace tplab::lessons::mixed_precision {

/// The bf16 nearest to x, ties to the one whose last bit is 0 (round to nearest even), as its
/// 16 bits. bf16 is the top half of an f32: sign, the same 8 exponent bits, 7 mantissa bits.
/// A NaN stays a NaN; a value past the largest finite bf16 by half an ulp or more becomes
/// infinity.
std::uint16_t to_bf16(float x);

/// The value of the bf16 with these bits, exactly, as an f32.
float from_bf16(std::uint16_t bits);

/// sum over i of a[i] b[i] as a GPU's bf16 matmul computes it: a[i] and b[i] stored in bf16
/// (rounded by to_bf16), their products added in f32, in the order of i.
float dot_bf16(std::span<const float> a, std::span<const float> b);

}  // namespace tplab::lessons::mixed_precision
