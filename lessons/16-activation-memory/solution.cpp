// Lesson 16, the answer: the 1D block's kept elements counted tensor by tensor, and the attention
// core that keeps q, k, v and computes P again in backward by forward's own operations.
#include <cmath>

#include "lesson.hpp"

namespace tplab::lessons::activation_memory {

// The library's count of the same (and of every other scheme): parallel's model,
// model/cost_1d.cpp, cost_1d; model/cost_1d_sp.cpp, sequence_parallel_activation_savings; and
// what recomputation takes off, model/rank_cost.cpp, apply_recompute.
std::int64_t predicted_kept_elements(const BlockShape& shape, int t, bool sequence_parallel,
                                     Recompute recompute) {
  const std::int64_t m = shape.tokens(), h = shape.h;
  // The four [m, h] tensors outside the linears: LN1's input x and output (the input of Wq, Wk
  // and Wv), LN2's input x1 and output (fc1's input). Whole on every rank in 1D; sequence
  // parallelism splits them, and their LayerNorms' 1/std [m] twice, by tokens.
  const std::int64_t outside = sequence_parallel ? (4 * m * h + 2 * m) / t : 4 * m * h + 2 * m;
  if (recompute == Recompute::full) return sequence_parallel ? m * h / t : m * h;  // x alone
  // Split by heads and by the MLP's columns: q, k, v, ctx (Wo's input) [m, h/t] and fc1's
  // output and GELU's output [m, 4h/t].
  const std::int64_t inside = 12 * m * h / t;
  // The probabilities P [b n/t, s, s], which selective recomputes instead of keeping.
  const std::int64_t probabilities = shape.b * (shape.heads / t) * shape.s * shape.s;
  return outside + inside + (recompute == Recompute::none ? probabilities : 0);
}

AttentionCore::AttentionCore(Device& device, std::int64_t batch, std::int64_t heads,
                             std::int64_t head_dim, Recompute recompute)
    : device_(device), batch_(batch), heads_(heads), head_dim_(head_dim), recompute_(recompute) {}

// The library's core, with dropout besides: parallel/layers/causal_attention.cpp,
// CausalAttention::probabilities.
Tensor AttentionCore::probabilities() {
  const std::int64_t bh = q_.dim(0), s = q_.dim(1);
  Tensor scores = device_.empty({bh, s, s}, q_.dtype());
  // per (batch, head): [s, d] x [s, d]^T -> [s, s]
  device_.batched_matmul(q_, Transpose::no, k_, Transpose::yes, scores);
  Tensor probs = device_.empty({bh, s, s}, q_.dtype());
  device_.causal_softmax_forward(scores, 1.0 / std::sqrt(static_cast<double>(head_dim_)), probs);
  return probs;  // scores is freed here: only P outlives the call
}

// parallel/layers/causal_attention.cpp, CausalAttention::forward.
Tensor AttentionCore::forward(const Tensor& q, const Tensor& k, const Tensor& v) {
  const std::int64_t s = q.rows() / batch_;
  // [batch s, heads d] -> [batch heads, s, d], each head's columns as a matrix of its own
  for (auto [from, to] : {std::pair{&q, &q_}, std::pair{&k, &k_}, std::pair{&v, &v_}}) {
    *to = device_.empty({batch_ * heads_, s, head_dim_}, q.dtype());
    device_.split_heads(*from, batch_, heads_, *to);
  }
  Tensor probs = probabilities();
  Tensor out = device_.empty(v_.extents(), q.dtype());
  // [s, s] x [s, d] -> [s, d]
  device_.batched_matmul(probs, Transpose::no, v_, Transpose::no, out);
  if (recompute_ == Recompute::none) probs_ = std::move(probs);  // else P is freed here
  Tensor ctx = device_.empty(q.extents(), q.dtype());
  device_.merge_heads(out, batch_, heads_, ctx);
  return ctx;
}

// parallel/layers/causal_attention.cpp, CausalAttention::backward.
void AttentionCore::backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv) {
  const std::int64_t bh = q_.dim(0), s = q_.dim(1);
  Tensor dout = device_.empty(q_.extents(), dctx.dtype());
  device_.split_heads(dctx, batch_, heads_, dout);
  // the same operations on the same q_ and k_: the same bits as the P forward used
  const Tensor probs = recompute_ == Recompute::none ? probs_ : probabilities();
  Tensor dprobs = device_.empty({bh, s, s}, dctx.dtype());
  // [s, d] x [s, d]^T -> [s, s]
  device_.batched_matmul(dout, Transpose::no, v_, Transpose::yes, dprobs);
  Tensor dv_heads = device_.empty(v_.extents(), dctx.dtype());
  // [s, s]^T x [s, d] -> [s, d]
  device_.batched_matmul(probs, Transpose::yes, dout, Transpose::no, dv_heads);
  Tensor dscores = device_.empty({bh, s, s}, dctx.dtype());
  device_.causal_softmax_backward(probs, dprobs, 1.0 / std::sqrt(static_cast<double>(head_dim_)),
                                  dscores);
  Tensor dq_heads = device_.empty(q_.extents(), dctx.dtype());
  // [s, s] x [s, d] -> [s, d]
  device_.batched_matmul(dscores, Transpose::no, k_, Transpose::no, dq_heads);
  Tensor dk_heads = device_.empty(k_.extents(), dctx.dtype());
  // [s, s]^T x [s, d] -> [s, d]
  device_.batched_matmul(dscores, Transpose::yes, q_, Transpose::no, dk_heads);
  for (auto [from, to] :
       {std::pair{&dq_heads, &dq}, std::pair{&dk_heads, &dk}, std::pair{&dv_heads, &dv}}) {
    *to = device_.empty(dctx.extents(), dctx.dtype());
    device_.merge_heads(*from, batch_, heads_, *to);
  }
}

}  // namespace tplab::lessons::activation_memory
