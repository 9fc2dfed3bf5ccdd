/// @file
/// The cost model of 3D tensor parallelism, derived from parallel/tp3d.
///
/// Notation: b batch, s sequence, h hidden, n heads, m = b s tokens; a cube of q^3 ranks with
/// the axis groups "input", "weight", "output" (q ranks) and the planes "input_weight",
/// "output_weight" (q^2 ranks). Every activation is [m/q^2, h/q] on a rank.
///
/// ---- one sublayer: linears that read the block's layout (Q, K, V; or fc1: "reads", W
/// [in, out]), then one that writes it back (the projection; or fc2: W [in', out'])
/// A reading linear all-gathers X over its input axis and reduce-scatters Y over its output
/// axis; the writing linear swaps the two axes (tp3d/linear_roles.hpp). W is gathered over
/// "weight". The reads share one gather of their input (InputGather3D).
/// One row per collective: phase, collective, group, what it moves, how often, elements.
/// <pre>
///   forward   all_gather      input          X [m/q^2, in/q] -> [m/q, in/q]   once      m in/q^2
///   forward   all_gather      weight         W [in/q^2, out/q] -> [in/q, out/q]
///                                                                    per linear  in out/q^2
///   forward   reduce_scatter  output         reading Y [m/q, out/q]  per read  m out/q^2
///   forward   all_gather      output         writer's X [m/q^2, in'/q]  once   m in'/q^2
///   forward   reduce_scatter  input          writer's Y [m/q, out'/q]   once   m out'/q^2
///   backward  all_gather      input          writer's dY                once   m out'/q^2
///   backward  reduce_scatter  weight         each dW            per linear  in out/q^2
///   backward  all_reduce      input_weight   writer's db [out'/q]       once   out'/q
///   backward  reduce_scatter  output         writer's dX~               once   m in'/q^2
///   backward  all_gather      output         each reading dY        per read   m out/q^2
///   backward  all_reduce      output_weight  each reading db [out/q]  per read  out/q
///   backward  reduce_scatter  input          the reads' summed dX~      once   m in/q^2
/// </pre>
///   regather adds in backward the forward's all_gathers of X (input and output) and of W.
///
/// ---- LayerNorm: features over "output", gamma and beta repeated over "input_weight"
///   forward 2 all_reduces on output of [m/q^2]; backward 1 of [m/q^2, 2] on output and 1 of
///   [2, h/q] on input_weight.
///
/// ---- attention: rank (i, j, k) holds heads block i and token block j q + k of q, k, v, so
/// its token group is "output_weight". When a token block is not whole sequences (q^2 does
/// not divide b), keys and values of the sequences it touches live on other ranks
/// (layers/token_block_attention.hpp): forward all-gathers K and V [m/q^2, h/q] -> [m, h/q]
/// (2 calls, 2 m h / q), backward reduce-scatters dK and dV (2 calls, 2 m h / q).
///
/// ---- per rank per block (no regather, whole sequences per token block):
///   forward:  input  all_gather 2 / 2 m h/q^2, reduce_scatter 2 / 2 m h/q^2
///             output reduce_scatter 4 / 7 m h/q^2, all_gather 2 / 5 m h/q^2, all_reduce 4 / 4
///             m/q^2 weight all_gather 6 / 12 h^2/q^2
///   backward: input  all_gather 2 / 2 m h/q^2, reduce_scatter 2 / 2 m h/q^2
///             output reduce_scatter 2 / 5 m h/q^2, all_gather 4 / 7 m h/q^2, all_reduce 2 / 4
///             m/q^2 weight reduce_scatter 6 / 12 h^2/q^2 input_weight all_reduce 4 / 6 h/q;
///             output_weight all_reduce 4 / 7 h/q
///   elements: (32 m h + 24 h^2 + 8 m) / q^2 + 13 h / q
///   bus:      2 (q-1)/q^3 (16 m h + 12 h^2) + 16 (q-1)/q^3 m + 26 (q^2-1)/q^3 h
/// which is schemes.md's 2(q-1)/q^3 (16 m h + 12 h^2) plus the LayerNorm and bias terms.
///
/// ---- memory
/// Parameters: W [in/q^2, out/q], biases and LayerNorm parameters [n/q]: 12 h^2/q^3 + 13 h/q.
/// Kept for backward: each LayerNorm's xhat [m/q^2, h/q] and 1/std; each input gather's X~
/// [m/q, in/q] (X alone when regathering); each linear's W~ [in/q, out/q] (none when
/// regathering); q, k, v and the probabilities of the attention window; the pre-GELU hidden
/// [m/q^2, 4h/q]. A window that cuts sequences covers them whole, so it differs from rank to
/// rank: each rank's is counted for that rank (activation_elements_by_rank), the largest in
/// activation_elements.
///
/// ---- the GPT outside its blocks (parallel/gpt/gpt_layout_3d.cpp), V the (padded) vocabulary
/// Kept for backward (elements), r = m/q^2: the final LayerNorm's xhat [r, h/q] and 1/std [r];
/// the LM head's (an input gather and a Linear3D, like fc1) X~ [m/q, h/q] and W~ [h/q, V/q], or
/// X [r, h/q] alone when regathering; the logits [r, V/q] and the loss's row maximum [r] and
/// (sum of exp, target logit) [r, 2]. Every rank keeps the same: the head's rows are token
/// blocks, not windows.
#include "cost_3d.hpp"

#include <algorithm>

#include "workload_sums.hpp"

namespace tplab::model {
namespace {

/// The linears of one sublayer: `reads` of [in, out] reading one input, then one [in2, out2].
struct Sublayer3D {
  int reads;
  std::int64_t in, out, in2, out2;
};

/// The rows of token block `block`'s attention window: the whole sequences its `rows` token
/// rows touch (as TokenBlockAttention computes it).
std::int64_t window_of(std::int64_t block, std::int64_t rows, std::int64_t s) {
  const std::int64_t first = block * rows / s * s;
  const std::int64_t end = ((block + 1) * rows - 1) / s * s + s;
  return end - first;
}

/// What the block's LayerNorms, attention and MLP keep on each world rank, beside the linears'
/// `linears_kept`: LayerNorms' xhat and 1/std; q, k, v and the probabilities of the rank's
/// window; the pre-GELU hidden. Rank i + q (j + q k) holds token block j q + k of
/// output_weight (parallel/grid/grid_3d.cpp), whose window sets its share.
std::vector<std::int64_t> block_kept_by_rank(const BlockShape& shape, int q,
                                             std::int64_t linears_kept) {
  const std::int64_t q2 = static_cast<std::int64_t>(q) * q, h = shape.h, s = shape.s;
  const std::int64_t rows = shape.tokens() / q2;
  std::vector<std::int64_t> kept;
  for (std::int64_t r = 0; r < q2 * q; ++r) {
    const std::int64_t window = window_of(r / q % q * q + r / q2, rows, s);
    kept.push_back(linears_kept + 2 * (rows * h / q + rows) + 3 * window * h / q +
                   window * (shape.heads / q) * s + rows * 4 * h / q);
  }
  return kept;
}

}  // namespace

std::int64_t gpt_parts_kept_3d(const gpt::GptShape& shape, int q, bool regather) {
  const std::int64_t m = shape.block.tokens(), h = shape.block.h, v = shape.vocab;
  const std::int64_t r = m / (static_cast<std::int64_t>(q) * q);
  const std::int64_t head = regather ? r * (h / q) : m / q * (h / q) + h / q * (v / q);
  return r * (h / q) + r + head + r * (v / q) + 3 * r;
}

RankCost cost_3d(const BlockShape& shape, int q, bool regather, Workload workload) {
  const std::int64_t m = shape.tokens(), h = shape.h, s = shape.s;
  const std::int64_t q2 = static_cast<std::int64_t>(q) * q;
  const std::int64_t rows = m / q2;  // token rows of an activation on a rank
  const int plane = q * q;
  std::vector<Sublayer3D> sublayers;
  if (workload == Workload::block) sublayers.push_back({3, h, h, h, h});  // Q, K, V; projection
  sublayers.push_back({1, h, 4 * h, 4 * h, h});                           // fc1; fc2
  const int layernorms = workload == Workload::block ? 2 : 0;

  RankCost cost;
  PhaseComm& fwd = cost.comm.forward;
  PhaseComm& bwd = cost.comm.backward;
  std::int64_t kept = 0;  // elements kept for backward
  for (const Sublayer3D& l : sublayers) {
    const std::int64_t weights = (l.reads * l.in * l.out + l.in2 * l.out2) / q2;  // W~ sizes
    fwd.add(Collective::all_gather, "input", q, 1, m * l.in / q2);
    fwd.add(Collective::all_gather, "weight", q, l.reads + 1, weights);
    fwd.add(Collective::reduce_scatter, "output", q, l.reads, l.reads * m * l.out / q2);
    fwd.add(Collective::all_gather, "output", q, 1, m * l.in2 / q2);
    fwd.add(Collective::reduce_scatter, "input", q, 1, m * l.out2 / q2);

    bwd.add(Collective::all_gather, "input", q, 1, m * l.out2 / q2);
    bwd.add(Collective::reduce_scatter, "weight", q, l.reads + 1, weights);
    bwd.add(Collective::all_reduce, "input_weight", plane, 1, l.out2 / q);
    bwd.add(Collective::reduce_scatter, "output", q, 1, m * l.in2 / q2);
    bwd.add(Collective::all_gather, "output", q, l.reads, l.reads * m * l.out / q2);
    bwd.add(Collective::all_reduce, "output_weight", plane, l.reads, l.reads * l.out / q);
    bwd.add(Collective::reduce_scatter, "input", q, 1, m * l.in / q2);
    if (regather) {
      bwd.add(Collective::all_gather, "weight", q, l.reads + 1, weights);
      bwd.add(Collective::all_gather, "input", q, 1, m * l.in / q2);
      bwd.add(Collective::all_gather, "output", q, 1, m * l.in2 / q2);
      kept += (m * l.in + m * l.in2) / (q2 * q);  // X [m/q^2, in/q] of both gathers
    } else {
      kept += (m * l.in + m * l.in2) / q2 + weights;  // X~ [m/q, in/q] of both gathers, W~
    }
  }
  fwd.add(Collective::all_reduce, "output", q, 2 * layernorms, 2 * layernorms * rows);
  bwd.add(Collective::all_reduce, "output", q, layernorms, 2 * layernorms * rows);
  bwd.add(Collective::all_reduce, "input_weight", plane, layernorms, 2 * layernorms * h / q);

  if (workload == Workload::block) {
    std::int64_t window = 0;
    for (std::int64_t block = 0; block < q2; ++block) {
      window = std::max(window, window_of(block, rows, s));
    }
    if (window != rows) {
      fwd.add(Collective::all_gather, "output_weight", plane, 2, 2 * m * h / q);
      bwd.add(Collective::reduce_scatter, "output_weight", plane, 2, 2 * m * h / q);
    }
    cost.activation_elements_by_rank = block_kept_by_rank(shape, q, kept);
    for (std::int64_t r = 0; r < q2 * q; ++r) {
      cost.probability_elements_by_rank.push_back(window_of(r / q % q * q + r / q2, rows, s) *
                                                  (shape.heads / q) * s);
    }
    kept = *std::max_element(cost.activation_elements_by_rank.begin(),
                             cost.activation_elements_by_rank.end());
  }
  cost.activation_elements = kept;

  const WorkloadSums w = workload_sums(shape, workload);
  cost.parameter_elements = w.weights / (q2 * q) + (w.out + 2 * h * w.layernorms) / q;
  if (q > 1) {
    // rank = i + q (j + q k); the colors of parallel/grid/grid_3d.cpp
    cost.groups.push_back({"input", q, [q](int r) { return r / q; }});
    cost.groups.push_back({"weight", q, [q, plane](int r) { return r % q + q * (r / plane); }});
    cost.groups.push_back({"output", q, [plane](int r) { return r % plane; }});
    cost.groups.push_back({"input_weight", plane, [plane](int r) { return r / plane; }});
    cost.groups.push_back({"output_weight", plane, [q](int r) { return r % q; }});
  }
  return cost;
}

}  // namespace tplab::model
