/// @file
/// The cost model of 2D tensor parallelism, derived from parallel/tp2d.
///
/// Notation: b batch, s sequence, h hidden, n heads, m = b s tokens; a q x q mesh, rank (i, j)
/// holding r = m/q token rows and h/q features of every activation. Counts are per rank and,
/// as the counters keep them, N is the size of the broadcast or reduced block.
///
/// ---- one Linear2D, W [in, out] (parallel/tp2d/summa.cpp, linear_2d.cpp)
///   forward  SUMMA:           q broadcasts on row of X(i,t) [r, in/q]         -> r in
///                             q broadcasts on column of W(t,j) [in/q, out/q]  -> in out / q
///   backward dW = X^T dY:     q broadcasts on row of X(i,t) [r, in/q]         -> r in
///                             q reduces on column of dW(t,j) [in/q, out/q]    -> in out / q
///            db:              1 all_reduce on column of db(j) [out/q]         -> out / q
///            dX = dY W^T:     q broadcasts on column of W(t,j) [in/q, out/q]  -> in out / q
///                             q reduces on row of dX(i,t) [r, in/q]           -> r in
/// Every rank takes part in every broadcast and reduce of its row and column (as root or not),
/// so the counts are the same on every rank. Step t's broadcasts and reduce have root t, the
/// t-th rank of the group: each of the q roots sends (or receives) 1/q of every row above. Q, K and
/// V read the same input but are separate linears: each broadcasts it again.
///
/// ---- one LayerNorm (parallel/layers/layernorm.cpp) with its features split over the row
///   forward:  2 all_reduces on row of [r] (sum of x, then of squared deviations)  -> 2 r
///   backward: 1 all_reduce on row of [r, 2] (sum of g and of g xhat)              -> 2 r
///             1 all_reduce on column of [2, h/q] (gamma and beta gradients)       -> 2 h / q
///
/// ---- the workload (sums from WorkloadSums: block 6 linears, in 9h, out 9h, weights 12 h^2,
///      2 LayerNorms; linear pair 2, 5h, 5h, 8 h^2, 0)
///   forward:  broadcast row     6q calls  9 r h          broadcast column  6q calls  12 h^2 / q
///             all_reduce row    4 calls   4 r
///   backward: broadcast row     6q calls  9 r h          broadcast column  6q calls  12 h^2 / q
///             reduce row        6q calls  9 r h          reduce column     6q calls  12 h^2 / q
///             all_reduce row    2 calls   4 r            all_reduce column 8 calls   13 h / q
/// With r = m/q, per rank per block, forward + backward:
///   elements (N summed):  (27 m h + 36 h^2 + 8 m + 13 h) / q
///   bus (N x factor):     (27 m h + 36 h^2) / q + 2(q-1)/q^2 (8 m + 13 h)
/// (schemes.md's "3(q-1)/q^2 (7 m h + 12 h^2)" counts the activation broadcasts of a fused QKV
/// linear, which broadcasts its input once: in = 7h. See docs/cost-model.md.)
///
/// ---- memory
/// Parameters: weights (i, j) [in/q, out/q], bias and LayerNorm blocks [n/q]:
///   block: 12 h^2 / q^2 + 13 h / q.
/// Activations kept for backward: as in 1D, but every [rows, features] tensor is [r, f/q], and
/// the attention probabilities cover b/q sequences and n/q heads:
///   block: 16 r h / q + (b/q)(n/q) s^2 + 2 r;   linear pair: 5 r h / q.
///
/// ---- the GPT outside its blocks (parallel/gpt/gpt_layout_mesh.cpp), V the (padded)
///      vocabulary, on one depth layer of d (2D: d = 1), r = m/(d q)
/// Kept for backward (elements): the final LayerNorm's xhat [r, h/q] and 1/std [r]; the LM
/// head's (a Linear2D) input [r, h/q]; the logits [r, V/q] and the loss's row maximum [r] and
/// (sum of exp, target logit) [r, 2]:   2 r h / q + r V / q + 4 r.
#include "cost_2d.hpp"

#include "workload_sums.hpp"

namespace tplab::model {

RankCost mesh_cost(const BlockShape& shape, int q, std::int64_t batch, Workload workload) {
  const WorkloadSums w = workload_sums(shape, workload);
  const std::int64_t h = shape.h;
  const std::int64_t r = batch * shape.s;  // token rows per rank
  RankCost cost;
  PhaseComm& fwd = cost.comm.forward;
  PhaseComm& bwd = cost.comm.backward;

  // step t of every linear's SUMMA, from root t: a block [r, in/q] on the row, [in/q, out/q]
  // on the column
  const std::int64_t on_row = r * w.in / q, on_column = w.weights / (q * q);
  for (int t = 0; t < q; ++t) {
    fwd.add_rooted(Collective::broadcast, "row", q, t, w.linears, on_row);        // X(i,t)
    fwd.add_rooted(Collective::broadcast, "column", q, t, w.linears, on_column);  // W(t,j)
    bwd.add_rooted(Collective::broadcast, "row", q, t, w.linears, on_row);        // X(i,t), dW
    bwd.add_rooted(Collective::reduce, "column", q, t, w.linears, on_column);     // dW(t,j)
    bwd.add_rooted(Collective::broadcast, "column", q, t, w.linears, on_column);  // W(t,j), dX
    bwd.add_rooted(Collective::reduce, "row", q, t, w.linears, on_row);           // dX(i,t)
  }
  fwd.add(Collective::all_reduce, "row", q, 2 * w.layernorms, 2 * w.layernorms * r);
  bwd.add(Collective::all_reduce, "column", q, w.linears + w.layernorms,
          w.out / q + w.layernorms * 2 * h / q);  // db, dgamma and dbeta
  bwd.add(Collective::all_reduce, "row", q, w.layernorms, w.layernorms * 2 * r);

  cost.parameter_elements = w.weights / (q * q) + (w.out + 2 * h * w.layernorms) / q;
  if (workload == Workload::block) {
    cost.probability_elements = batch * (shape.heads / q) * shape.s * shape.s;
    cost.activation_elements = 16 * r * h / q + cost.probability_elements + 2 * r;
  } else {
    cost.activation_elements = 5 * r * h / q;  // fc1's input [r, h/q], fc2's input [r, 4h/q]
  }
  return cost;
}

std::int64_t gpt_parts_kept_mesh(const gpt::GptShape& shape, int q, int d) {
  const std::int64_t r = shape.block.tokens() / (d * q), h = shape.block.h, v = shape.vocab;
  return 2 * r * h / q + r * v / q + 4 * r;
}

RankCost cost_2d(const BlockShape& shape, int q, Workload workload) {
  RankCost cost = mesh_cost(shape, q, shape.b / q, workload);
  if (q > 1) {
    // rank = i q + j: a row holds q consecutive ranks, a column every q-th
    cost.groups.push_back({"row", q, [q](int rank) { return rank / q; }});
    cost.groups.push_back({"column", q, [q](int rank) { return rank % q; }});
  }
  return cost;
}

}  // namespace tplab::model
