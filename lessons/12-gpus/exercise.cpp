// Lesson 12 exercise: bf16 by hand. Fill in the TODO blocks, then run ./tplab lesson check 12.
// README.md explains; ./tplab lesson hint 12 helps.
#include "lessons/common/exercise.hpp"

#include <bit>
#include <cmath>

#include "lesson.hpp"

namespace tplab::lessons::mixed_precision {

std::uint16_t to_bf16(float x) {
  // TODO: take x's 32 bits (std::bit_cast<std::uint32_t>) and keep the top 16, rounded to
  //       nearest with ties to even: the dropped low half decides, compared with 0x8000.
  //       Keep a NaN a NaN (a NaN whose payload lies in the low bits must not become infinity).
  (void)x;
  TPLAB_TODO();
}

float from_bf16(std::uint16_t bits) {
  // TODO: the bf16's bits are the top half of an f32's; the low half is zero.
  (void)bits;
  TPLAB_TODO();
}

float dot_bf16(std::span<const float> a, std::span<const float> b) {
  // TODO: round every a[i] and b[i] to bf16 and back (storage), multiply, and add into an f32
  //       sum in the order of i (accumulation).
  (void)a;
  (void)b;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::mixed_precision
