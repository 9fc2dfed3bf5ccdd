/// @file
/// The arithmetic inside CudaDevice's kernels that is easy to get wrong: where an element of a
/// head goes, and the online softmax a warp runs over a row. Written once for the host and the
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

/// The row-major index in the token-major [b*s, n*d] of element `o` of the head-major
/// [b*n, s, d]: head hi of sequence bi is columns hi*d..hi*d+d-1 of rows bi*s..bi*s+s-1.
TPLAB_HOST_DEVICE inline std::int64_t token_major_index(std::int64_t o, std::int64_t heads,
                                                        std::int64_t s, std::int64_t d) {
  const std::int64_t di = o % d;
  const std::int64_t si = (o / d) % s;
  const std::int64_t bn = o / (d * s);  // bi * heads + hi
  return ((bn / heads * s + si) * heads + bn % heads) * d + di;
}

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
