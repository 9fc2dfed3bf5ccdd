#include "layers/causal_attention.hpp"

#include <cmath>

namespace tplab {

CausalAttention::CausalAttention(Device& device, std::int64_t batch, std::int64_t heads,
                                 std::int64_t head_dim, AttentionDropout dropout,
                                 Recompute recompute)
    : device_(device),
      batch_(batch),
      heads_(heads),
      head_dim_(head_dim),
      scale_(1.0 / std::sqrt(static_cast<double>(head_dim))),
      dropout_(std::move(dropout)),
      recompute_(recompute) {}

Tensor CausalAttention::split(const Tensor& x) {
  const std::int64_t s = x.rows() / batch_;
  Tensor out = device_.empty({batch_ * heads_, s, head_dim_}, x.dtype());
  device_.split_heads(x, batch_, heads_, out);
  return out;
}

Tensor CausalAttention::merge(const Tensor& x) {
  Tensor out = device_.empty({batch_ * x.dim(1), heads_ * head_dim_}, x.dtype());
  device_.merge_heads(x, batch_, heads_, out);
  return out;
}

bool CausalAttention::dropping() const {
  return dropout_.dropout != nullptr && dropout_.dropout->active();
}

Tensor CausalAttention::probabilities() {
  const std::int64_t bh = q_.dim(0);
  const std::int64_t s = q_.dim(1);
  Tensor scores = device_.empty({bh, s, s}, q_.dtype());
  // per (batch, head): [s, d] x [s, d]^T -> [s, s]
  device_.batched_matmul(q_, Transpose::no, k_, Transpose::yes, scores);
  Tensor probs = device_.empty({bh, s, s}, q_.dtype());
  device_.causal_softmax_forward(scores, scale_, probs);
  return probs;
}

Tensor CausalAttention::dropped(const Tensor& probs) {
  if (!dropping()) return probs;
  Tensor out = device_.empty(probs.extents(), probs.dtype());
  device_.copy(probs, out);
  device_.dropout(out,
                  dropout_.dropout->probs_mask(draw_, dropout_.batch0, dropout_.head0, heads_));
  return out;
}

Tensor CausalAttention::forward(const Tensor& q, const Tensor& k, const Tensor& v) {
  q_ = split(q);
  k_ = split(k);
  v_ = split(v);
  if (dropping()) draw_ = dropout_.dropout->draw();
  Tensor probs = probabilities();
  Tensor out = device_.empty(v_.extents(), q.dtype());
  // [s, s] x [s, d] -> [s, d]
  device_.batched_matmul(dropped(probs), Transpose::no, v_, Transpose::no, out);
  // under full this is the block's forward or its replay in backward: P is kept as under none
  // (the block lets go of it after its first forward), so backward reads the replay's P
  if (recompute_ != Recompute::selective) probs_ = std::move(probs);
  return merge(out);
}

void CausalAttention::backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv) {
  const Tensor dout = split(dctx);
  const Tensor probs = recompute_ == Recompute::selective ? probabilities() : probs_;
  const std::int64_t bh = q_.dim(0);
  const std::int64_t s = q_.dim(1);
  Tensor dprobs = device_.empty({bh, s, s}, dctx.dtype());
  // [s, d] x [s, d]^T -> [s, s]: the gradient of D(P), then of P through the same mask
  device_.batched_matmul(dout, Transpose::no, v_, Transpose::yes, dprobs);
  if (dropping()) {
    device_.dropout(dprobs,
                    dropout_.dropout->probs_mask(draw_, dropout_.batch0, dropout_.head0, heads_));
  }
  Tensor dv_heads = device_.empty(v_.extents(), dctx.dtype());
  // [s, s]^T x [s, d] -> [s, d]
  device_.batched_matmul(dropped(probs), Transpose::yes, dout, Transpose::no, dv_heads);
  Tensor dscores = device_.empty({bh, s, s}, dctx.dtype());
  device_.causal_softmax_backward(probs, dprobs, scale_, dscores);
  Tensor dq_heads = device_.empty(q_.extents(), dctx.dtype());
  // [s, s] x [s, d] -> [s, d]
  device_.batched_matmul(dscores, Transpose::no, k_, Transpose::no, dq_heads);
  Tensor dk_heads = device_.empty(k_.extents(), dctx.dtype());
  // [s, s]^T x [s, d] -> [s, d]
  device_.batched_matmul(dscores, Transpose::yes, q_, Transpose::no, dk_heads);
  dq = merge(dq_heads);
  dk = merge(dk_heads);
  dv = merge(dv_heads);
}

void CausalAttention::forget() {
  q_ = Tensor();
  k_ = Tensor();
  v_ = Tensor();
  probs_ = Tensor();
}

}  // namespace tplab
