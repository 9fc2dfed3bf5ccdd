/// @file
/// What every kernel of CudaDevice shares, templated on the storage type T (double, float,
/// __nv_bfloat16) with arithmetic in Acc<T> (double for double, float otherwise): the loads and
/// stores that widen and narrow, the element-wise loop (a grid-stride loop), the row loop (one
/// warp per row) and the warp reductions. No kernel divides per element: a kernel that needs an
/// element's row and column walks the rows with its warps and the columns with their lanes, so
/// the per-row values are read once and the column grows by addition alone (before: a flat
/// index split by 64-bit / and % per element, which also held the LayerNorm kernels at 126-150
/// registers a thread). Launch sizes come from launch_plan.hpp. The kernels themselves live
/// beside their launchers, one family a file (device/ops/*.cu, device/cuda/column_sums.cu).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "device/cuda/kernel_math.hpp"
#include "device/cuda/launch_plan.hpp"

namespace tplab::cuda {

/// The arithmetic type of storage type T.
template <typename T>
struct Accumulate {
  using type = float;  ///< f32 for f32 and bf16
};
/// f64 storage computes in f64.
template <>
struct Accumulate<double> {
  using type = double;  ///< f64
};
/// The arithmetic type of storage type T.
template <typename T>
using Acc = typename Accumulate<T>::type;

/// Widens a stored value to its arithmetic type.
__device__ __forceinline__ float widen(float v) {
  return v;
}
/// Widens a stored value to its arithmetic type.
__device__ __forceinline__ double widen(double v) {
  return v;
}
/// Widens a stored value to its arithmetic type.
__device__ __forceinline__ float widen(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

/// Rounds an arithmetic value to storage type T (to nearest, ties to even).
template <typename T>
__device__ __forceinline__ T narrow(Acc<T> v);
/// f32 stays f32.
template <>
__device__ __forceinline__ float narrow<float>(float v) {
  return v;
}
/// f64 stays f64.
template <>
__device__ __forceinline__ double narrow<double>(double v) {
  return v;
}
/// f32 rounds to bf16.
template <>
__device__ __forceinline__ __nv_bfloat16 narrow<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

/// tanh in the arithmetic type.
__device__ __forceinline__ float tanh_of(float v) {
  return tanhf(v);
}
/// tanh in the arithmetic type.
__device__ __forceinline__ double tanh_of(double v) {
  return tanh(v);
}
/// exp in the arithmetic type.
__device__ __forceinline__ float exp_of(float v) {
  return expf(v);
}
/// exp in the arithmetic type.
__device__ __forceinline__ double exp_of(double v) {
  return exp(v);
}
/// exp_of as a function object, for OnlineSoftmax (which the host's tests run too).
struct ExpOf {
  /// exp(v) in v's type.
  template <typename A>
  __host__ __device__ A operator()(A v) const {
#if defined(__CUDA_ARCH__)
    return exp_of(v);
#else
    return std::exp(v);
#endif
  }
};
/// 1 / sqrt in the arithmetic type.
__device__ __forceinline__ float rsqrt_of(float v) {
  return rsqrtf(v);
}
/// 1 / sqrt in the arithmetic type.
__device__ __forceinline__ double rsqrt_of(double v) {
  return rsqrt(v);
}

/// The element-wise loop. The grid walks over tiles of kElementsPerThread x blockDim elements;
/// thread t of a block takes elements t, t + blockDim, ... of its tile, so that a warp's
/// accesses stay contiguous, and it issues all its loads (load(i), which returns what it
/// read) before any store (store(i, value)): kElementsPerThread loads in flight per thread keep
/// enough bytes in flight to approach the memory's bandwidth.
template <typename Load, typename Store>
__device__ __forceinline__ void for_each_element(std::int64_t n, Load load, Store store) {
  using Value = decltype(load(std::int64_t{0}));
  const std::int64_t tile = static_cast<std::int64_t>(blockDim.x) * kElementsPerThread;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * tile;
  for (std::int64_t base = blockIdx.x * tile + threadIdx.x; base < n; base += stride) {
    Value v[kElementsPerThread];
#pragma unroll
    for (int k = 0; k < kElementsPerThread; ++k) {
      const std::int64_t i = base + static_cast<std::int64_t>(k) * blockDim.x;
      if (i < n) v[k] = load(i);
    }
#pragma unroll
    for (int k = 0; k < kElementsPerThread; ++k) {
      const std::int64_t i = base + static_cast<std::int64_t>(k) * blockDim.x;
      if (i < n) store(i, v[k]);
    }
  }
}

/// Two values read for one element.
template <typename A>
struct Pair {
  A first = 0;   ///< from the first input
  A second = 0;  ///< from the second input
};

/// Three values read for one element.
template <typename A>
struct Triple {
  A first = 0;   ///< from the first input
  A second = 0;  ///< from the second input
  A third = 0;   ///< from the third input
};

/// The sum over the 32 lanes of a warp, on every lane.
template <typename A>
__device__ __forceinline__ A warp_sum(A v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}
/// The maximum over the 32 lanes of a warp, on every lane.
template <typename A>
__device__ __forceinline__ A warp_max(A v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

/// The row a warp of a row kernel works on (the same on all its lanes).
__device__ __forceinline__ std::int64_t warp_row() {
  return static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarpSize;
}
/// This thread's lane in its warp.
__device__ __forceinline__ int lane() {
  return static_cast<int>(threadIdx.x % kWarpSize);
}

/// A warp's loop over the `cols` columns of its row: lane l takes columns l, l + 32, ...,
/// kElementsPerThread of them per pass, all loaded (load(c), which returns what it read)
/// before any is stored (store(c, value)), as in for_each_element; c grows by addition alone.
template <typename Load, typename Store>
__device__ __forceinline__ void for_each_in_row(std::int64_t cols, Load load, Store store) {
  using Value = decltype(load(std::int64_t{0}));
  constexpr std::int64_t kPass = std::int64_t{kWarpSize} * kElementsPerThread;
  for (std::int64_t base = lane(); base < cols; base += kPass) {
    Value v[kElementsPerThread];
#pragma unroll
    for (int k = 0; k < kElementsPerThread; ++k) {
      const std::int64_t c = base + k * kWarpSize;
      if (c < cols) v[k] = load(c);
    }
#pragma unroll
    for (int k = 0; k < kElementsPerThread; ++k) {
      const std::int64_t c = base + k * kWarpSize;
      if (c < cols) store(c, v[k]);
    }
  }
}

}  // namespace tplab::cuda
