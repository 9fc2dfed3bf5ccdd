/// @file
/// The kernels of CudaDevice, templated on the storage type T (double, float, __nv_bfloat16)
/// with arithmetic in Acc<T> (double for double, float otherwise). Element-wise kernels use a
/// grid-stride loop; row kernels give each row one warp; column sums run in two passes. No
/// kernel divides per element: a kernel that needs an element's row and column walks the rows
/// with its warps and the columns with their lanes, so the per-row values are read once and the
/// column grows by addition alone (before: a flat index split by 64-bit / and % per element,
/// which also held the LayerNorm kernels at 126-150 registers a thread). Launch sizes come from
/// launch_plan.hpp. Included only by cuda_device.cu.
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

// ---- element-wise -------------------------------------------------------------------------------

/// x[i] = value.
template <typename T>
__global__ void fill_kernel(T* x, std::int64_t n, Acc<T> value) {
  const T v = narrow<T>(value);
  for_each_element(
      n, [](std::int64_t) { return 0; }, [&](std::int64_t i, int) { x[i] = v; });
}

/// y[i] += x[i].
template <typename T>
__global__ void add_kernel(T* y, const T* x, std::int64_t n) {
  using A = Acc<T>;
  for_each_element(
      n,
      [&](std::int64_t i) {
        return Pair<A>{widen(y[i]), widen(x[i])};
      },
      [&](std::int64_t i, Pair<A> v) { y[i] = narrow<T>(v.first + v.second); });
}

/// x[i] *= alpha.
template <typename T>
__global__ void scale_kernel(T* x, std::int64_t n, Acc<T> alpha) {
  for_each_element(
      n, [&](std::int64_t i) { return widen(x[i]); },
      [&](std::int64_t i, Acc<T> v) { x[i] = narrow<T>(v * alpha); });
}

/// y[r, c] += bias[c] over a row-major [rows, cols]; one warp per row.
template <typename T>
__global__ void add_bias_kernel(T* y, const T* bias, std::int64_t rows, std::int64_t cols) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;  // the whole warp leaves together
  T* row = y + r * cols;
  for_each_in_row(
      cols,
      [&](std::int64_t c) {
        return Pair<A>{widen(row[c]), widen(bias[c])};
      },
      [&](std::int64_t c, Pair<A> v) { row[c] = narrow<T>(v.first + v.second); });
}

/// sqrt(2/pi) and the cubic coefficient of GELU's tanh form.
inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
/// The cubic coefficient of GELU's tanh form.
inline constexpr double kGeluCubic = 0.044715;

/// y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <typename T>
__global__ void gelu_forward_kernel(const T* x, T* y, std::int64_t n) {
  using A = Acc<T>;
  const A c = static_cast<A>(kSqrt2OverPi), k = static_cast<A>(kGeluCubic);
  for_each_element(
      n, [&](std::int64_t i) { return widen(x[i]); },
      [&](std::int64_t i, A v) {
        const A t = tanh_of(c * (v + k * v * v * v));
        y[i] = narrow<T>(A(0.5) * v * (A(1) + t));
      });
}

/// dx = dy ((1 + t)/2 + x/2 (1 - t^2) sqrt(2/pi) (1 + 3 0.044715 x^2)), t as in the forward.
template <typename T>
__global__ void gelu_backward_kernel(const T* x, const T* dy, T* dx, std::int64_t n) {
  using A = Acc<T>;
  const A c = static_cast<A>(kSqrt2OverPi), k = static_cast<A>(kGeluCubic);
  for_each_element(
      n,
      [&](std::int64_t i) {
        return Pair<A>{widen(x[i]), widen(dy[i])};
      },
      [&](std::int64_t i, Pair<A> in) {
        const A v = in.first;
        const A t = tanh_of(c * (v + k * v * v * v));
        const A slope =
            A(0.5) * (A(1) + t) + A(0.5) * v * (A(1) - t * t) * c * (A(1) + A(3) * k * v * v);
        dx[i] = narrow<T>(in.second * slope);
      });
}

/// split: out [b*n, s, d] (head-major) from x [b*s, n*d] (token-major); merge (`merge`): the
/// same map backwards, x [b*n, s, d] -> out [b*s, n*d]. One warp per token-major row bi*s + si:
/// its head hi, columns hi*d..hi*d+d-1, is the head-major row (bi*n + hi)*s + si
/// (TokenRowHeads). Values pass through unchanged.
template <typename T>
__global__ void heads_kernel(const T* x, T* out, std::int64_t token_rows, std::int64_t heads,
                             std::int64_t s, std::int64_t d, bool merge) {
  const std::int64_t r = warp_row();
  if (r >= token_rows) return;
  const TokenRowHeads place(r, heads, s, d);
  for (std::int64_t hi = 0; hi < heads; ++hi) {
    const std::int64_t token = (r * heads + hi) * d, head = place.head_start(hi);
    const T* from = x + (merge ? head : token);
    T* to = out + (merge ? token : head);
    for_each_in_row(
        d, [&](std::int64_t c) { return from[c]; }, [&](std::int64_t c, T v) { to[c] = v; });
  }
}

/// The smallest index i with x[i] NaN or Inf, by atomicMin into *first (preset to the
/// largest value).
template <typename T>
__global__ void first_nonfinite_kernel(const T* x, std::int64_t n, unsigned long long* first) {
  for_each_element(
      n, [&](std::int64_t i) { return widen(x[i]); },
      [&](std::int64_t i, Acc<T> v) {
        if (!isfinite(v)) atomicMin(first, static_cast<unsigned long long>(i));
      });
}

// ---- rows: one warp per row ---------------------------------------------------------------------

/// out[r] = sum_c x[r, c].
template <typename T>
__global__ void row_sum_kernel(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;  // the whole warp leaves together
  const T* row = x + r * cols;
  Acc<T> sum = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) sum += widen(row[c]);
  sum = warp_sum(sum);
  if (lane() == 0) out[r] = narrow<T>(sum);
}

/// out[r] = sum_c (x[r, c] - mean[r])^2.
template <typename T>
__global__ void row_squared_deviation_kernel(const T* x, const T* mean, T* out, std::int64_t rows,
                                             std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = x + r * cols;
  const Acc<T> m = widen(mean[r]);
  Acc<T> sum = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    const Acc<T> dev = widen(row[c]) - m;
    sum += dev * dev;
  }
  sum = warp_sum(sum);
  if (lane() == 0) out[r] = narrow<T>(sum);
}

/// sums[r] = (sum_c g, sum_c g xhat) with g = dy[r, c] gamma[c]; sums is [rows, 2].
template <typename T>
__global__ void layernorm_sums_kernel(const T* dy, const T* gamma, const T* xhat, T* sums,
                                      std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  Acc<T> sum_g = 0, sum_gx = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    const Acc<T> g = widen(dy[r * cols + c]) * widen(gamma[c]);
    sum_g += g;
    sum_gx += g * widen(xhat[r * cols + c]);
  }
  sum_g = warp_sum(sum_g);
  sum_gx = warp_sum(sum_gx);
  if (lane() == 0) {
    sums[2 * r] = narrow<T>(sum_g);
    sums[2 * r + 1] = narrow<T>(sum_gx);
  }
}

/// probs = softmax(scale * scores) of each row of [batch * s, s], query i = r mod s seeing
/// keys 0..i; the rest of the row is 0. One pass keeps a running maximum and the sum of
/// exponentials rescaled to it (online softmax), a second writes the probabilities.
template <typename T>
__global__ void causal_softmax_forward_kernel(const T* scores, T* probs, std::int64_t rows,
                                              std::int64_t s, Acc<T> scale) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const std::int64_t visible = r % s + 1;
  const T* in = scores + r * s;
  T* out = probs + r * s;
  OnlineSoftmax<A> run;
#pragma unroll 4
  for (std::int64_t c = lane(); c < visible; c += kWarpSize) run.add(scale * widen(in[c]), ExpOf{});
  const A row_max = warp_max(run.max);
  const A inverse = A(1) / warp_sum(run.sum_at(row_max, ExpOf{}));
#pragma unroll 4
  for (std::int64_t c = lane(); c < s; c += kWarpSize) {
    out[c] = narrow<T>(c < visible ? exp_of(scale * widen(in[c]) - row_max) * inverse : A(0));
  }
}

/// dscores = scale * probs * (dprobs - sum_c(dprobs * probs)) per row of [batch * s, s], query
/// i = r mod s. Only the visible keys 0..i are read: the forward wrote probs 0 at the masked
/// ones, so their terms and their gradients are 0, and they are written as 0 without being
/// read. (The CPU's version reads the whole row; it differs only where dprobs holds a NaN or
/// Inf at a masked key, which the GPU, like the mathematics, ignores.)
template <typename T>
__global__ void causal_softmax_backward_kernel(const T* probs, const T* dprobs, T* dscores,
                                               std::int64_t rows, std::int64_t s, Acc<T> scale) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const std::int64_t visible = r % s + 1;
  const std::int64_t base = r * s;
  A dot = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < visible; c += kWarpSize) {
    dot += widen(probs[base + c]) * widen(dprobs[base + c]);
  }
  dot = warp_sum(dot);
#pragma unroll 4
  for (std::int64_t c = lane(); c < s; c += kWarpSize) {
    dscores[base + c] = narrow<T>(
        c < visible ? scale * widen(probs[base + c]) * (widen(dprobs[base + c]) - dot) : A(0));
  }
}

// ---- LayerNorm element-wise parts: one warp per row ---------------------------------------------

/// rstd[r] = 1/sqrt(var[r] + eps), xhat = (x - mean[r]) rstd, y = xhat gamma[c] + beta[c].
template <typename T>
__global__ void layernorm_apply_kernel(const T* x, const T* mean, const T* var, Acc<T> eps,
                                       const T* gamma, const T* beta, T* xhat, T* rstd, T* y,
                                       std::int64_t rows, std::int64_t cols) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const A m = widen(mean[r]);
  const A inv = rsqrt_of(widen(var[r]) + eps);  // once per row (before: once per element)
  if (lane() == 0) rstd[r] = narrow<T>(inv);
  const std::int64_t offset = r * cols;
  for_each_in_row(
      cols,
      [&](std::int64_t c) {
        return Triple<A>{widen(x[offset + c]), widen(gamma[c]), widen(beta[c])};
      },
      [&](std::int64_t c, Triple<A> v) {
        const A normed = (v.first - m) * inv;
        xhat[offset + c] = narrow<T>(normed);
        y[offset + c] = narrow<T>(normed * v.second + v.third);
      });
}

/// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy gamma, means from sums / features.
template <typename T>
__global__ void layernorm_input_kernel(const T* dy, const T* gamma, const T* xhat, const T* rstd,
                                       const T* sums, Acc<T> inv_features, T* dx, std::int64_t rows,
                                       std::int64_t cols) {
  using A = Acc<T>;
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const A scale = widen(rstd[r]);
  const A mean_g = widen(sums[2 * r]) * inv_features;
  const A mean_gx = widen(sums[2 * r + 1]) * inv_features;
  const std::int64_t offset = r * cols;
  for_each_in_row(
      cols,
      [&](std::int64_t c) {
        return Triple<A>{widen(dy[offset + c]), widen(xhat[offset + c]), widen(gamma[c])};
      },
      [&](std::int64_t c, Triple<A> v) {
        const A g = v.first * v.third;
        dx[offset + c] = narrow<T>(scale * (g - mean_g - v.second * mean_gx));
      });
}

// ---- column sums in two passes ------------------------------------------------------------------

/// First pass: partial[chunk, c] = sum over the chunk's rows of x[r, c] (times y[r, c] when y
/// is given). Block (kColumnTile, kRowsPerBlock): lanes take columns, warps take rows.
template <typename T>
__global__ void column_partial_kernel(const T* x, const T* y, Acc<T>* partial, std::int64_t rows,
                                      std::int64_t cols, std::int64_t rows_per_chunk) {
  using A = Acc<T>;
  __shared__ A tile[kRowsPerBlock][kColumnTile + 1];
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.y) * rows_per_chunk;
  const std::int64_t last = min(first + rows_per_chunk, rows);
  A sum = 0;
  if (c < cols) {
#pragma unroll 4
    for (std::int64_t r = first + threadIdx.y; r < last; r += kRowsPerBlock) {
      const A v = widen(x[r * cols + c]);
      sum += y == nullptr ? v : v * widen(y[r * cols + c]);
    }
  }
  tile[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    A total = 0;
    for (int w = 0; w < kRowsPerBlock; ++w) total += tile[w][threadIdx.x];
    partial[static_cast<std::int64_t>(blockIdx.y) * cols + c] = total;
  }
}

/// Second pass: out[c] = sum_k partial[k, c] (+ beta * out[c] when beta != 0; out is not read
/// otherwise, so it may hold anything).
template <typename T>
__global__ void column_finish_kernel(const Acc<T>* partial, T* out, std::int64_t chunks,
                                     std::int64_t cols, Acc<T> beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; c < cols;
       c += stride) {
    Acc<T> total = 0;
    for (std::int64_t k = 0; k < chunks; ++k) total += partial[k * cols + c];
    if (beta != Acc<T>(0)) total += beta * widen(out[c]);
    out[c] = narrow<T>(total);
  }
}

// ---- a vocabulary shard: embedding rows and cross-entropy ---------------------------------------
// ids and targets index this rank's shard of the vocabulary; one outside [0, shard rows) belongs
// to another rank and is skipped.

/// out[r, :] = table[ids[r], :], or 0 where ids[r] is not in this shard; one warp per row.
template <typename T>
__global__ void gather_rows_kernel(const T* table, const std::int64_t* ids, T* out,
                                   std::int64_t rows, std::int64_t table_rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const std::int64_t id = ids[r];
  const bool here = id >= 0 && id < table_rows;
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    out[r * cols + c] = here ? table[id * cols + c] : narrow<T>(Acc<T>(0));
  }
}

/// table[ids[r], c] += src[r, c] for r = 0, 1, ... in order; one thread per column, so the
/// additions into a cell happen in the host's order and the result does not depend on how the
/// threads are scheduled (no atomics).
template <typename T>
__global__ void scatter_add_rows_kernel(const T* src, const std::int64_t* ids, T* table,
                                        std::int64_t rows, std::int64_t table_rows,
                                        std::int64_t cols) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t id = ids[r];
    if (id < 0 || id >= table_rows) continue;
    T& cell = table[id * cols + c];
    cell = narrow<T>(widen(cell) + widen(src[r * cols + c]));
  }
}

/// out[r] = max_c x[r, c]; one warp per row.
template <typename T>
__global__ void row_max_kernel(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = x + r * cols;
  Acc<T> m = -Acc<T>(INFINITY);
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) m = max(m, widen(row[c]));
  m = warp_max(m);
  if (lane() == 0) out[r] = narrow<T>(m);
}

/// sums[r] = (sum_c exp(logits[r, c] - max[r]), logits[r, targets[r]] or 0 when the target is
/// not in this shard); one warp per row.
template <typename T>
__global__ void cross_entropy_sums_kernel(const T* logits, const T* max,
                                          const std::int64_t* targets, T* sums, std::int64_t rows,
                                          std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = logits + r * cols;
  const Acc<T> m = widen(max[r]);
  Acc<T> sum = 0;
#pragma unroll 4
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) sum += exp_of(widen(row[c]) - m);
  sum = warp_sum(sum);
  if (lane() == 0) {
    const std::int64_t t = targets[r];
    sums[2 * r] = narrow<T>(sum);
    sums[2 * r + 1] = t >= 0 && t < cols ? row[t] : narrow<T>(Acc<T>(0));
  }
}

/// dlogits[r, c] = scale (exp(logits[r, c] - max[r]) / sums[r, 0] - [c == targets[r]]); one
/// warp per row.
template <typename T>
__global__ void cross_entropy_backward_kernel(const T* logits, const T* max, const T* sums,
                                              const std::int64_t* targets, Acc<T> scale, T* dlogits,
                                              std::int64_t rows, std::int64_t cols) {
  const std::int64_t r = warp_row();
  if (r >= rows) return;
  const T* row = logits + r * cols;
  const Acc<T> m = widen(max[r]);
  const Acc<T> total = widen(sums[2 * r]);
  const std::int64_t t = targets[r];
  for (std::int64_t c = lane(); c < cols; c += kWarpSize) {
    Acc<T> d = exp_of(widen(row[c]) - m) / total * scale;
    if (c == t) d -= scale;
    dlogits[r * cols + c] = narrow<T>(d);
  }
}

}  // namespace tplab::cuda
