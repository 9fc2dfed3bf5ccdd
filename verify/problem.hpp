/// @file
/// The global problem of a verification run: seeded inputs and the reference's answers.
#pragma once

#include <cstdint>

#include "host_array.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/scheme.hpp"

namespace tplab::verify {

/// How the inputs are drawn.
enum class Values {
  /// Uniform values scaled like a trained network's (weights ~ 1/sqrt(fan-in)); x ~ U[-1, 1).
  real,
  /// The same with x ~ kShiftedInputMean + U[-1, 1): a residual stream whose features share a
  /// large mean. Its variance is small beside its mean, so a LayerNorm that computes the
  /// variance as E[x^2] - E[x]^2 loses digits that the two-pass E[(x - E[x])^2] keeps;
  /// centred inputs (mean near 0) hide that cancellation entirely.
  shifted,
  /// Small integers (-2..2), so every sum in a linear layer is exact in f32 and f64.
  integer,
};

/// The common offset of x under Values::shifted. With +20 the square of the mean is 1200 times
/// the variance (1/3), so a one-pass variance loses about 10 of f64's bits.
inline constexpr double kShiftedInputMean = 20.0;

/// The fewest features for which verify draws x far from zero. A row of a few uniform draws
/// may lie close together, and against so small a spread even the two-pass variance's
/// rounding of the mean grows (rel_l2 up to 6.4e-14 at h = 4, measured); from 24 features on,
/// a row's spread stays near its expected 0.58 and correct code stays within 1.6e-14.
inline constexpr std::int64_t kShiftedInputMinHidden = 24;

/// x, dy and every parameter the workload uses, drawn from `seed`. Every rank draws the same
/// values: the generator is std::mt19937_64 with a portable conversion to double.
HostArrays make_inputs(const BlockShape& shape, std::uint64_t seed, Workload workload,
                       Values values);

/// The reference's y, dx and every parameter gradient ("d_wq", ...) for these inputs, in f64.
HostArrays reference_outputs(const BlockShape& shape, const HostArrays& inputs, Workload workload,
                             const DropoutOptions& dropout = {});

}  // namespace tplab::verify
