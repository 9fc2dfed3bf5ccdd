/// @file
/// The cost model of 1D tensor parallelism, derived from parallel/tp1d.
///
/// Notation: b batch, s sequence, h hidden, n heads, m = b s tokens, t ranks in the group "tp".
///
/// ---- communication
/// Every rank holds the activations [m, h] whole. A sublayer (attention, or the MLP) is a set
/// of column-parallel linears reading one input (Q, K, V; or fc1) and one row-parallel linear
/// (the output projection; or fc2) whose partial products are summed:
///
///   forward:  operator g after the row-parallel linear: all_reduce of Y [m, h]
///   backward: operator f before the column-parallel linears: all_reduce of dX [m, h]
///             (Q, K and V add their partial dX first, so one all-reduce serves all three)
///
/// LayerNorm sees whole rows and holds gamma and beta whole: it communicates nothing, and
/// neither do attention (whole heads per rank) or the residuals.
///
///   per rank, per phase: all_reduce on tp, calls = sublayers, elements = sublayers * m h
///   block: 2 calls and 2 m h forward, the same backward; linear pair: 1 call and m h each.
///
/// Bus volume of the block (forward + backward): 4 m h x 2(t-1)/t = 8 (t-1)/t m h.
///
/// ---- memory
/// Parameters: the column-parallel weights and biases and the row-parallel weights are split
/// t ways; the row-parallel biases (bo, b2) and the LayerNorm parameters are whole:
///   block: (12 h^2 + 7 h) / t + 6 h;   linear pair: (8 h^2 + 4 h) / t + h.
/// Activations kept for backward (elements):
///   replicated [m, h]: LN1's xhat, LN1's output a (kept once for Q, K, V), LN2's xhat,
///     LN2's output (kept by fc1): 4 m h, plus LN's 1/std [m] twice: 2 m;
///   split [m, h/t]: q, k, v, the context (kept by the projection): 4 m h / t;
///   split [m, 4h/t]: the MLP's input and output of GELU: 8 m h / t;
///   the attention probabilities [b n/t, s, s]: b n s^2 / t.
///   block: 4 m h + 12 m h / t + b n s^2 / t + 2 m;   linear pair: m h + 4 m h / t.
///
/// ---- the GPT outside its blocks (parallel/gpt/gpt_layout_1d.cpp), V the (padded) vocabulary
/// Kept for backward (elements), with and without sequence parallelism (SP):
///   the final LayerNorm's xhat and 1/std: m h + m, or m h / t + m / t with SP (its tokens);
///   the LM head's input [m, h], whole either way (SP gathers it once and keeps the gather);
///   the logits [m, V/t] (the loss keeps the head's output itself), and the loss's row
///   maximum [m] and (sum of exp, target logit) [m, 2]: m V / t + 3 m.
/// The embedding keeps only the ids, on the host.
#include "cost_1d.hpp"

#include "workload_sums.hpp"

namespace tplab::model {

RankCost cost_1d(const BlockShape& shape, int t, Workload workload) {
  const WorkloadSums w = workload_sums(shape, workload);
  const std::int64_t m = shape.tokens(), h = shape.h;
  RankCost cost;

  cost.comm.forward.add(Collective::all_reduce, "tp", t, w.sublayers, w.sublayers * m * h);
  cost.comm.backward.add(Collective::all_reduce, "tp", t, w.sublayers, w.sublayers * m * h);

  // Each sublayer ends in one row-parallel linear with an out-feature bias of h kept whole.
  const std::int64_t whole_biases = w.sublayers * h;
  cost.parameter_elements =
      (w.weights + w.out - whole_biases) / t + whole_biases + 2 * h * w.layernorms;

  if (workload == Workload::block) {
    cost.probability_elements = shape.b * shape.heads * shape.s * shape.s / t;
    cost.activation_elements = 4 * m * h + 12 * m * h / t + cost.probability_elements + 2 * m;
  } else {
    cost.activation_elements = m * h + 4 * m * h / t;  // fc1's input, fc2's input
  }
  if (t > 1) cost.groups.push_back({"tp", t, [](int) { return 0; }});
  return cost;
}

std::int64_t gpt_parts_kept_1d(const gpt::GptShape& shape, int t, bool sequence_parallel) {
  const std::int64_t m = shape.block.tokens(), h = shape.block.h, v = shape.vocab;
  const std::int64_t own = sequence_parallel ? m / t : m;  // the final LayerNorm's rows
  return own * h + own + m * h + m * v / t + 3 * m;
}

double korthikanti_activation_bytes_1d(const BlockShape& shape, int t, Recompute mode) {
  const double s = static_cast<double>(shape.s), b = static_cast<double>(shape.b);
  const double h = static_cast<double>(shape.h), a = static_cast<double>(shape.heads);
  switch (mode) {
    case Recompute::none:
      return s * b * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t));
    case Recompute::selective:
      return s * b * h * (10.0 + 24.0 / t);
    case Recompute::full:
      return 2.0 * s * b * h;
  }
  return 0;
}

}  // namespace tplab::model
