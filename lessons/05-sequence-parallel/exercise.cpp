// Lesson 05 exercise: sequence parallelism. Write the all-gather and the reduce-scatter along
// the tokens, then the LayerNorm + MLP sublayer on token shards with them. Fill in the TODO
// blocks, then run ./tplab lesson check 5. README.md explains; ./tplab lesson hint 5 helps.
#include "layers/layernorm.hpp"
#include "lesson.hpp"
#include "lessons/common/lesson.hpp"
#include "tp1d/column_parallel_linear.hpp"

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

SpResult ln_mlp_sequence_parallel(Device& device, Comm& tp, const SpShards& p,
                                  const Tensor& x_shard, const Tensor& dy_shard) {
  SpResult r;
  // TODO (forward):
  //   a      = LN(x_r)                   [m/t, h]: whole rows, local (a LayerNorm; which group
  //                                      must sum gamma's and beta's gradients?)
  //   a_full = all_gather_tokens(a)      g: [m, h]
  //   hidden = a_full W1_r + b1_r        [m, h] x [h, 4h/t] -> [m, 4h/t]  (a ColumnParallelLinear)
  //   act    = gelu(hidden)
  //   r.y    = reduce_scatter_tokens(act W2_r) + b2 + x_r     [m, 4h/t] x [4h/t, h] -> [m, h]
  //                                                           -> g-bar -> [m/t, h]
  (void)device;
  (void)tp;
  (void)p;
  (void)x_shard;
  TPLAB_TODO();

  // TODO (backward), from dy_r [m/t, h]:
  //   r.d_b2 = column sums of dy_r, then summed over tp (each rank saw only its tokens)
  //   dy     = all_gather_tokens(dy_r)   g-bar backward: [m, h]
  //   r.d_w2 = act^T dy   [4h/t, m] x [m, h] -> [4h/t, h];   dact = dy W2_r^T  [m, 4h/t]
  //   dhidden = gelu'(hidden) * dact; fc1's backward gives d_w1, d_b1 and a partial da [m, h]
  //   da_r   = reduce_scatter_tokens(da) g backward: [m/t, h]
  //   r.dx   = LN's backward of da_r + dy_r (the residual); r.d_gamma, r.d_beta from the LN
  (void)dy_shard;
  TPLAB_TODO();
  return r;
}

}  // namespace tplab::lessons::sequence_parallel
