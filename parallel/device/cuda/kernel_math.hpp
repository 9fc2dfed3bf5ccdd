/// @file
/// The arithmetic inside CudaDevice's kernels that is easy to get wrong: where the heads of a
/// row go, and the online softmax a warp runs over a row. Written once for the host and the
/// GPU, so that tests on a machine without a GPU run the same code the kernels do.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
/// Compiles a function for the GPU as well as the host (nvcc); plain C++ on the host alone.
#define TPLAB_HOST_DEVICE __host__ __device__
#else
/// Compiles a function for the GPU as well as the host (nvcc); plain C++ on the host alone.
#define TPLAB_HOST_DEVICE
#endif

namespace tplab::cuda {

/// Where the heads of one token-major row go: row r = bi*s + si of x [b*s, n*d] holds head hi in
/// columns hi*d..hi*d+d-1, which are row (bi*n + hi)*s + si of the head-major [b*n, s, d]. The
/// one division (r by s) happens once per row, never per element.
struct TokenRowHeads {
  std::int64_t first = 0;   ///< the head-major element where head 0 of the row starts
  std::int64_t stride = 0;  ///< elements from one head's start to the next's: s*d

  /// The heads of token-major row `row` in a layout of `heads` heads of `d` features over
  /// sequences of `s` tokens.
  TPLAB_HOST_DEVICE TokenRowHeads(std::int64_t row, std::int64_t heads, std::int64_t s,
                                  std::int64_t d)
      : first((row / s * heads * s + row % s) * d), stride(s * d) {}

  /// The head-major element where head `hi` of the row starts.
  TPLAB_HOST_DEVICE std::int64_t head_start(std::int64_t hi) const { return first + hi * stride; }
};

/// A running maximum and sum of exponentials over a stream of values (online softmax): after
/// add(z) for every z, sum = sum_z exp(z - max). Each lane of a warp keeps one over its share
/// of a row; sum_at rescales a lane's sum to the row's maximum, where a lane that saw nothing
/// adds 0. A NaN among the values makes the sum NaN (it never passes for a number).
template <typename A>
struct OnlineSoftmax {
  A max = -INFINITY;  ///< the largest value so far (-inf before the first)
  A sum = 0;          ///< sum of exp(value - max) so far

  /// Takes in one more value; exp is the arithmetic type's exponential.
  template <typename Exp>
  TPLAB_HOST_DEVICE void add(A z, Exp exp) {
    const A next = max > z ? max : z;  // a NaN z becomes the maximum, and the sum NaN
    sum = sum * exp(max - next) + exp(z - next);
    max = next;
  }

  /// The sum rescaled to `row_max` (>= max): 0 for a lane that saw no value.
  template <typename Exp>
  TPLAB_HOST_DEVICE A sum_at(A row_max, Exp exp) const {
    return sum == A(0) ? A(0) : sum * exp(max - row_max);
  }
};

}  // namespace tplab::cuda
