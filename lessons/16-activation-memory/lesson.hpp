/// @file
/// Lesson 16: activation memory. What tplab's 1D block keeps from forward for backward, with
/// and without sequence parallelism and recomputation, predicted; then the attention core that
/// keeps q, k and v and computes its probabilities again in backward.
#pragma once

#include <cstdint>

#include "device/device.hpp"
#include "scheme/block_shape.hpp"
#include "scheme/recompute.hpp"

namespace tplab::lessons::activation_memory {

/// Part "predict": the elements one rank of tplab's 1D block of `shape` over t ranks keeps from
/// forward for backward (1d-sp when `sequence_parallel`), under `recompute` (README, "What the
/// block keeps"). The check measures the library's block on the device and compares, exactly.
std::int64_t predicted_kept_elements(const BlockShape& shape, int t, bool sequence_parallel,
                                     Recompute recompute);

/// Part "selective": causal self-attention over `heads` whole heads of `batch` sequences, which
/// with Recompute::none keeps the probabilities P for backward and with Recompute::selective
/// keeps only q, k and v and computes P again in backward, by forward's own operations, so that
/// every result is bit for bit the same. q, k, v are [batch s, heads d], head i in columns
/// i d .. i d + d - 1.
///
///   forward:  P = causal softmax(q k^T / sqrt(d)), ctx = P v
///   backward: dP = dctx v^T, dv = P^T dctx, dscores = softmax's backward(P, dP),
///             dq = dscores k, dk = dscores^T q
class AttentionCore {
 public:
  /// The core over `batch` sequences and `heads` heads of `head_dim` features.
  AttentionCore(Device& device, std::int64_t batch, std::int64_t heads, std::int64_t head_dim,
                Recompute recompute);

  /// ctx [batch s, heads d] from q, k, v of the same extents.
  Tensor forward(const Tensor& q, const Tensor& k, const Tensor& v);
  /// dctx -> dq, dk, dv (allocated here, the extents of q, k, v).
  void backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv);

 private:
  /// P [batch heads, s, s] = causal softmax(q_ k_^T / sqrt(d)), from the kept q_ and k_.
  Tensor probabilities();

  Device& device_;
  std::int64_t batch_, heads_, head_dim_;
  Recompute recompute_;
  Tensor q_, k_, v_;  ///< head-major [batch heads, s, d]: what forward keeps
  Tensor probs_;      ///< P, kept with Recompute::none only
};

}  // namespace tplab::lessons::activation_memory
