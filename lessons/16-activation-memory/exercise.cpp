// Lesson 16 exercise: what tplab's 1D block keeps for backward, predicted; then the attention
// core that recomputes its probabilities in backward. Fill in the TODO blocks, then run
// ./tplab lesson check 16. README.md explains the idea; ./tplab lesson hint 16 helps.
#include "lessons/common/exercise.hpp"

#include <cmath>

#include "lesson.hpp"

namespace tplab::lessons::activation_memory {

std::int64_t predicted_kept_elements(const BlockShape& shape, int t, bool sequence_parallel,
                                     Recompute recompute) {
  // TODO: count, tensor by tensor, what one rank keeps (README, "What the block keeps"):
  //       the tensors outside the linears (whole in 1D, split by tokens with sequence
  //       parallelism), those split by heads and columns, and the probabilities. Then what
  //       Recompute::selective and Recompute::full leave of it. m = shape.tokens().
  (void)shape;
  (void)t;
  (void)sequence_parallel;
  (void)recompute;
  TPLAB_TODO();
}

AttentionCore::AttentionCore(Device& device, std::int64_t batch, std::int64_t heads,
                             std::int64_t head_dim, Recompute recompute)
    : device_(device), batch_(batch), heads_(heads), head_dim_(head_dim), recompute_(recompute) {}

Tensor AttentionCore::probabilities() {
  // TODO: P = causal softmax(q_ k_^T / sqrt(d)) for every (batch, head) at once:
  //       device_.batched_matmul (transpose k_), then device_.causal_softmax_forward with the
  //       scale 1/sqrt(head_dim_). Return P [batch heads, s, s].
  TPLAB_TODO();
}

Tensor AttentionCore::forward(const Tensor& q, const Tensor& k, const Tensor& v) {
  // TODO: split q, k, v into heads (device_.split_heads) and keep them in q_, k_, v_; P from
  //       probabilities(); ctx = P v per head; keep P in probs_ only with Recompute::none;
  //       merge the heads back (device_.merge_heads) into [batch s, heads d].
  (void)q;
  (void)k;
  (void)v;
  TPLAB_TODO();
}

void AttentionCore::backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv) {
  // TODO: P is probs_, or computed again from q_ and k_ (Recompute::selective). Then
  //       dP = dout v^T, dv = P^T dout, dscores = device_.causal_softmax_backward(P, dP),
  //       dq = dscores k, dk = dscores^T q, each merged back into [batch s, heads d].
  (void)dctx;
  (void)dq;
  (void)dk;
  (void)dv;
  TPLAB_TODO();
}

}  // namespace tplab::lessons::activation_memory
