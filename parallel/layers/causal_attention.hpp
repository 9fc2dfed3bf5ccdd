/// @file
/// Causal self-attention over whole heads held by one rank (local: no communication).
#pragma once

#include <memory>

#include "device/device.hpp"
#include "layers/block_dropout.hpp"
#include "scheme/recompute.hpp"

namespace tplab {

/// Where a rank's attention core lies among the global sequences and heads, and the dropout it
/// draws there (none when `dropout` is null or inactive).
struct AttentionDropout {
  std::shared_ptr<const BlockDropout> dropout;  ///< the block's, shared
  std::int64_t batch0 = 0;                      ///< the global sequence of local sequence 0
  std::int64_t head0 = 0;                       ///< the global head of local head 0
};

/// Every scheme gives each rank whole heads (and whole sequences), so the attention core
/// itself never communicates. Inputs q, k, v are [b_local*s, heads_local*d] with head i in
/// columns i*d..i*d+d-1, the layout a column split of Wq/Wk/Wv produces.
///
///   forward:  scores = q k^T, P = causal softmax(scores / sqrt(d)), ctx = D(P) v
///   backward: dD = dctx v^T, dP = D(dD) (the same mask), dv = D(P)^T dctx,
///             dscores = softmax's backward(P, dP), dq = dscores k, dk = dscores^T q
///
/// D is dropout on the probabilities, its mask drawn again in backward from the draw forward
/// recorded (never kept). P is kept for backward, or with Recompute::selective computed again
/// from the kept q and k by the same operations, so bit for bit the same. With Recompute::full
/// the core keeps P as with none: the block lets go of it after forward (forget) and runs
/// forward again before backward, whose P backward reads, so that P is computed twice a step,
/// as with selective, and not a third time.
class CausalAttention {
 public:
  /// Attention over `batch` sequences and `heads` heads of `head_dim` features.
  CausalAttention(Device& device, std::int64_t batch, std::int64_t heads, std::int64_t head_dim,
                  AttentionDropout dropout = {}, Recompute recompute = Recompute::none);

  /// ctx = D(softmax(q k^T / sqrt(d) + causal mask)) v per (batch, head).
  Tensor forward(const Tensor& q, const Tensor& k, const Tensor& v);
  /// dctx -> dq, dk, dv (allocated here, same layout as q, k, v).
  void backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv);
  /// Lets go of what forward kept (a block that recomputes everything keeps none of it).
  void forget();

 private:
  Tensor split(const Tensor& x);
  Tensor merge(const Tensor& x);
  Tensor probabilities();               // P from q_ and k_
  Tensor dropped(const Tensor& probs);  // D(P), a new tensor (P itself when not dropping)
  bool dropping() const;

  Device& device_;
  std::int64_t batch_, heads_, head_dim_;
  double scale_;
  AttentionDropout dropout_;
  Recompute recompute_;
  DropoutDraw draw_;          // the draw forward used, replayed by backward
  Tensor q_, k_, v_, probs_;  // head-major [b*heads, s, d] and [b*heads, s, s]
};

}  // namespace tplab
