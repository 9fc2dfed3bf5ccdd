// Lesson 12 checker: the exercise's bf16 rounding bit for bit against an independent rounding
// (the nearer of the two neighbouring bf16 values, found in f64), its dot product against the
// same emulation, and then what bf16 does to agreement: the dot split over the ranks and summed
// in f32 against the f64 reference, within verify's bf16 tolerance, and how the error grows
// with the length of the sum.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <limits>

#include "lesson.hpp"
#include "lessons/common/lesson.hpp"

namespace tplab::lessons::mixed_precision {
namespace {

constexpr std::int64_t kDots = 64;      // K independent dot products: one row of a matmul
constexpr std::int64_t kLength = 4096;  // L: the inner extent, as a layer with h = 4096 has

/// The quiet NaN every NaN result is compared as: a NaN's payload is free.
constexpr std::uint16_t kCanonicalNan = 0x7FC0;

bool is_nan_bf16(std::uint16_t bits) {
  return (bits & 0x7F80u) == 0x7F80u && (bits & 0x007Fu) != 0;
}

/// Round to nearest even by distance: the bf16 values just below and just above |x| (2^128
/// standing in for the one past the largest finite), whichever is nearer, the even one on a
/// tie. Independent of the bit trick the solution uses.
std::uint16_t reference_bf16(float x) {
  if (std::isnan(x)) return kCanonicalNan;
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t down = bits & 0xFFFF0000u;
  const std::uint32_t up = down + 0x10000u;
  const double value = std::abs(static_cast<double>(x));
  const double below = std::abs(static_cast<double>(std::bit_cast<float>(down)));
  if (value == below) return static_cast<std::uint16_t>(down >> 16);
  const double above = (up & 0x7FFFFFFFu) == 0x7F800000u
                           ? std::ldexp(1.0, 128)
                           : std::abs(static_cast<double>(std::bit_cast<float>(up)));
  const double to_below = value - below, to_above = above - value;
  const bool take_up = to_above < to_below || (to_above == to_below && ((down >> 16) & 1u) != 0);
  return static_cast<std::uint16_t>((take_up ? up : down) >> 16);
}

float reference_value(float x) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(reference_bf16(x)) << 16);
}

/// The rounding cases worth a name, then values of every magnitude drawn from a seed.
std::vector<float> rounding_cases() {
  std::vector<float> cases = {
      0.0f,
      -0.0f,
      1.0f,
      -2.5f,
      1.0f / 3.0f,
      3.14159265f,
      65504.0f,
      1e-40f,
      -1e-42f,
      1.00390625f,                              // 1 + 2^-8: a tie, to the even 1
      1.01171875f,                              // 1 + 3 2^-8: a tie, to the even 1 + 2^-6
      std::bit_cast<float>(0x3F808001u),        // just above that first tie: rounds up
      std::bit_cast<float>(0x7F7F7FFFu),        // just below half an ulp past the largest bf16
      std::bit_cast<float>(0x7F7F8000u),        // half an ulp past it: to infinity
      std::numeric_limits<float>::max(),        // to infinity
      -std::numeric_limits<float>::max(),       // to -infinity
      std::numeric_limits<float>::infinity(),   // stays
      -std::numeric_limits<float>::infinity(),  // stays
      std::numeric_limits<float>::quiet_NaN(),  // stays a NaN
      std::bit_cast<float>(0x7F800001u),        // a NaN with its payload in the low bits
      std::bit_cast<float>(0x7FFFFFFFu),        // a NaN whose rounding would carry into the sign
  };
  const std::vector<double> u = draw(2048, 21, false);
  for (std::size_t i = 0; i < u.size(); ++i) {
    cases.push_back(static_cast<float>(std::ldexp(u[i], static_cast<int>(i % 80) - 40)));
  }
  return cases;
}

/// The check's own bf16-storage, f32-accumulation dot, from reference_bf16.
float reference_dot(const float* a, const float* b, std::int64_t n) {
  float sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += reference_value(a[i]) * reference_value(b[i]);
  return sum;
}

/// The same with the sum itself kept in bf16: what an accumulator of 16 bits would do.
float bf16_accumulated_dot(const float* a, const float* b, std::int64_t n) {
  float sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    sum = reference_value(sum + reference_value(a[i]) * reference_value(b[i]));
  }
  return sum;
}

/// ||got - want|| / ||want|| over a set of dot products.
double rel_l2(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return std::sqrt(diff / norm);
}

/// Rank 0 prints how far each way of computing 16 dot products of length L lies from f64.
void print_error_growth() {
  constexpr int kRows = 16;
  fmt::print("\nrel_l2 against f64 of {} dot products of uniform [-1, 1) values, by length L:\n",
             kRows);
  fmt::print("  {:>6}  {:>14}  {:>14}  {:>14}\n", "L", "f32 / f32", "bf16 / f32", "bf16 / bf16");
  for (std::int64_t length : {16, 256, 4096, 65536}) {
    const std::vector<double> a = draw(kRows * length, 31, false),
                              b = draw(kRows * length, 32, false);
    const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
    std::vector<double> exact, f32, mixed, bf16;
    for (int row = 0; row < kRows; ++row) {
      const std::size_t at = static_cast<std::size_t>(row * length);
      double e = 0;
      float s = 0;
      for (std::int64_t i = 0; i < length; ++i) {
        e += static_cast<double>(af[at + i]) * static_cast<double>(bf[at + i]);
        s += af[at + i] * bf[at + i];
      }
      exact.push_back(e);
      f32.push_back(s);
      mixed.push_back(dot_bf16({af.data() + at, static_cast<std::size_t>(length)},
                               {bf.data() + at, static_cast<std::size_t>(length)}));
      bf16.push_back(bf16_accumulated_dot(af.data() + at, bf.data() + at, length));
    }
    fmt::print("  {:>6}  {:>14.2e}  {:>14.2e}  {:>14.2e}\n", length, rel_l2(f32, exact),
               rel_l2(mixed, exact), rel_l2(bf16, exact));
  }
  fmt::print("  (storage / accumulation; verify's bf16 tolerance: rel_l2 {:g})\n",
             verify::tolerance_for(DType::bf16, false).max_rel_l2);
  std::vector<float> ones(4096, 1.0f);
  fmt::print("  4096 ones summed: {} with an f32 accumulator, {} with a bf16 one\n",
             dot_bf16(ones, ones), bf16_accumulated_dot(ones.data(), ones.data(), 4096));
}

void run(Lesson& lesson) {
  const int t = lesson.size();
  require_world_size(
      lesson, kLength % t == 0 && t <= 8,
      fmt::format("lesson 12 splits dot products of length {} over t ranks", kLength), {1, 2, 4});
  Device& device = lesson.device();

  lesson.part("forward", [&] {
    // 1. The rounding, bit for bit, and the way back.
    const std::vector<float> cases = rounding_cases();
    std::vector<double> want_bits, got_bits;
    for (float x : cases) {
      const std::uint16_t got = to_bf16(x);
      got_bits.push_back(is_nan_bf16(got) ? kCanonicalNan : got);
      want_bits.push_back(reference_bf16(x));
    }
    std::vector<double> want_back, got_back;
    for (std::uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
      want_back.push_back(static_cast<double>(bits << 16));
      got_back.push_back(std::bit_cast<std::uint32_t>(from_bf16(static_cast<std::uint16_t>(bits))));
    }
    const auto count = [](const std::vector<double>& v) {
      return static_cast<std::int64_t>(v.size());
    };
    const TensorPlacement bits_place = replicated("bits", {count(want_bits)}, t);
    const TensorPlacement back_place = replicated("back", {count(want_back)}, t);
    const auto as_tensor = [&](const std::vector<double>& values) {
      Tensor x = device.empty({count(values)}, DType::f64);
      device.upload(values, x);
      return x;
    };
    lesson.expect("to_bf16", host_array({count(want_bits)}, want_bits), bits_place,
                  as_tensor(got_bits), exact_tolerance());
    lesson.expect("from_bf16", host_array({count(want_back)}, want_back), back_place,
                  as_tensor(got_back), exact_tolerance());

    // 2. K dot products of length L: A[K, L] and B[K, L], their columns split over the ranks.
    const std::vector<double> a = draw(kDots * kLength, 41, false);
    const std::vector<double> b = draw(kDots * kLength, 42, false);
    const std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end());
    std::vector<double> exact(kDots), whole_reference(kDots), whole(kDots);
    for (std::int64_t k = 0; k < kDots; ++k) {
      const float* ak = af.data() + k * kLength;
      const float* bk = bf.data() + k * kLength;
      for (std::int64_t i = 0; i < kLength; ++i) {
        exact[k] += static_cast<double>(ak[i]) * static_cast<double>(bk[i]);
      }
      whole_reference[k] = reference_dot(ak, bk, kLength);
      whole[k] = dot_bf16({ak, kLength}, {bk, kLength});
    }
    const TensorPlacement dots_place = replicated("D", {kDots}, t);
    lesson.expect("dot_bf16", host_array({kDots}, whole_reference), dots_place, as_tensor(whole),
                  exact_tolerance());

    const std::int64_t part = kLength / t;
    const auto column_block = [](int r) { return std::pair<std::int64_t, std::int64_t>{0, r}; };
    const TensorPlacement a_place =
        blocked("A", {kDots, kLength}, "Shard(1)", t, 1, t, column_block);
    lesson.print_shards(
        {{"A", "[K, L_T]", &a_place}, {"B", "[K, L_T]", &a_place}, {"D", "[K]", &dots_place}});
    std::vector<double> partial(kDots);
    for (std::int64_t k = 0; k < kDots; ++k) {
      const std::int64_t at = k * kLength + lesson.rank() * part;
      partial[k] = dot_bf16({af.data() + at, static_cast<std::size_t>(part)},
                            {bf.data() + at, static_cast<std::size_t>(part)});
    }
    Tensor sum = device.empty({kDots}, DType::f32);
    device.upload(partial, sum);  // the f32 partial sums, exactly
    // Summed in f32: an all-reduce of bf16 tensors would round again at every step of the ring.
    lesson.world().all_reduce(sum);
    lesson.expect("dot vs f64", host_array({kDots}, exact), dots_place, sum,
                  verify::tolerance_for(DType::bf16, false));
    const bool pass =
        lesson.report("bf16: the rounding, the dot product, and the agreement with f64");
    if (lesson.speaks()) {
      fmt::print(
          "  to_bf16: the bits of {} values (the rounding cases, then values of every "
          "magnitude); from_bf16: all 65536 patterns, as f32 bits\n",
          cases.size());
      fmt::print("  dot_bf16: K = {} dots of L = {}, against the same sums computed here\n", kDots,
                 kLength);
      fmt::print(
          "  dot vs f64: each rank's dot_bf16 over its L/t, summed in f32 over the ranks, "
          "against f64 within verify's bf16 tolerance\n");
      if (pass) print_error_growth();
      std::fflush(stdout);
    }
  });
}

}  // namespace
}  // namespace tplab::lessons::mixed_precision

int main() {
  return tplab::lessons::run_lesson("lesson 12", tplab::lessons::mixed_precision::run);
}
