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
  /// Uniform values scaled like a trained network's (weights ~ 1/sqrt(fan-in)).
  real,
  /// Small integers (-2..2), so every sum in a linear layer is exact in f32 and f64.
  integer,
};

/// x, dy and every parameter the workload uses, drawn from `seed`. Every rank draws the same
/// values: the generator is std::mt19937_64 with a portable conversion to double.
HostArrays make_inputs(const BlockShape& shape, std::uint64_t seed, Workload workload,
                       Values values);

/// The reference's y, dx and every parameter gradient ("d_wq", ...) for these inputs, in f64.
HostArrays reference_outputs(const BlockShape& shape, const HostArrays& inputs, Workload workload);

}  // namespace tplab::verify
