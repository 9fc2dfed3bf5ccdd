/// @file
/// Causal self-attention over whole heads held by one rank (local: no communication).
#pragma once

#include "device/device.hpp"

namespace tplab {

/// Every scheme gives each rank whole heads (and whole sequences), so the attention core
/// itself never communicates. Inputs q, k, v are [b_local*s, heads_local*d] with head i in
/// columns i*d..i*d+d-1, the layout a column split of Wq/Wk/Wv produces.
class CausalAttention {
 public:
  /// Attention over `batch` sequences and `heads` heads of `head_dim` features.
  CausalAttention(Device& device, std::int64_t batch, std::int64_t heads, std::int64_t head_dim);

  /// ctx = softmax(q k^T / sqrt(d) + causal mask) v per (batch, head).
  Tensor forward(const Tensor& q, const Tensor& k, const Tensor& v);
  /// dctx -> dq, dk, dv (allocated here, same layout as q, k, v).
  void backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv);

 private:
  Tensor split(const Tensor& x);
  Tensor merge(const Tensor& x);

  Device& device_;
  std::int64_t batch_, heads_, head_dim_;
  double scale_;
  Tensor q_, k_, v_, probs_;  // head-major [b*heads, s, d] and [b*heads, s, s]
};

}  // namespace tplab
