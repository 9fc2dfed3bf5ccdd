// Lesson 05 exercise: sequence parallelism. Write the all-gather and the reduce-scatter along
// the tokens, then the LayerNorm + MLP sublayer on token shards with them. Fill in the TODO
// blocks, then run ./tplab lesson check 5. README.md explains; ./tplab lesson hint 5 helps.
#include "lessons/common/exercise.hpp"

#include "lesson.hpp"

namespace tplab::lessons::sequence_parallel {

Tensor all_gather_tokens(Device& device, Comm& tp, const Tensor& shard) {
  // TODO: [m/t, h] on each rank -> [m, h] on every rank. Comm::all_gather stacks the shards
  //       along the first extent in rank order: exactly the token order.
  (void)device;
  (void)tp;
  (void)shard;
  TPLAB_TODO();
}

Tensor reduce_scatter_tokens(Device& device, Comm& tp, const Tensor& full) {
  // TODO: every rank's partial [m, h] -> this rank's rows [m/t, h] of their sum
  //       (Comm::reduce_scatter).
  (void)device;
  (void)tp;
  (void)full;
  TPLAB_TODO();
}

SpForward ln_mlp_forward(Device& device, Comm& tp, const SpShards& p, const Tensor& x_shard) {
  SpForward r;
  // TODO:
  //   a_r    = LN(x_r)                   [m/t, h]: whole rows, local. mean and var per row
  //                                      (row_sum, scale, row_sum_squared_deviation), then
  //                                      layernorm_apply with kEps into xhat and rstd
  //   a      = all_gather_tokens(a_r)    g: [m, h]
  //   hidden = a W1_r + b1_r             [m, h] x [h, 4h/t] -> [m, 4h/t]  (matmul, add_bias)
  //   act    = gelu(hidden)
  //   r.y    = reduce_scatter_tokens(act W2_r) + b2 + x_r     [m, 4h/t] x [4h/t, h] -> [m, h]
  //                                                           -> g-bar -> [m/t, h]
  //   r.saved = {xhat, rstd, a, hidden, act}                  what ln_mlp_backward reads
  (void)device;
  (void)tp;
  (void)p;
  (void)x_shard;
  TPLAB_TODO();
  return r;
}

SpGrads ln_mlp_backward(Device& device, Comm& tp, const SpShards& p, const SpSaved& saved,
                        const Tensor& dy_shard) {
  SpGrads r;
  // TODO, from dy_r [m/t, h] and saved = {xhat, rstd, a, hidden, act}:
  //   r.d_b2 = column sums of dy_r, then summed over tp (each rank saw only its tokens)
  //   dy     = all_gather_tokens(dy_r)   g-bar backward: [m, h]
  //   r.d_w2 = act^T dy   [4h/t, m] x [m, h] -> [4h/t, h];   dact = dy W2_r^T  [m, 4h/t]
  //   dhidden = gelu'(hidden) * dact;   r.d_w1 = a^T dhidden  [h, m] x [m, 4h/t] -> [h, 4h/t]
  //   r.d_b1 = column sums of dhidden;  da = dhidden W1_r^T  [m, 4h/t] x [4h/t, h] -> [m, h]
  //   da_r   = reduce_scatter_tokens(da) g backward: [m/t, h]
  //   r.dx   = LN's backward of da_r (layernorm_backward_sums, then layernorm_backward_input)
  //            + dy_r (the residual)
  //   r.d_gamma, r.d_beta: layernorm_backward_params, then summed over tp (which tokens did
  //            this rank's LayerNorm see?)
  (void)device;
  (void)tp;
  (void)p;
  (void)saved;
  (void)dy_shard;
  TPLAB_TODO();
  return r;
}

}  // namespace tplab::lessons::sequence_parallel
