/// @file
/// The cost model of 1D tensor parallelism with sequence parallelism (1d-sp), derived from
/// parallel/tp1d (GatherFromSequenceParallelRegion and ReduceScatterToSequenceParallelRegion in
/// conjugate_operators.cpp, RowParallelLinear in row_parallel_linear.cpp, and LayerNorm with
/// Mode1D's sequence_parallel).
///
/// Notation: b batch, s sequence, h hidden, n heads, m = b s tokens, t ranks in the group "tp".
/// Rank r holds tokens [r m/t, (r+1) m/t) of the block's input, output and their gradients.
///
/// ---- communication
/// Each sublayer (attention, or the MLP) trades 1D's all-reduces for the two halves of one:
///
///   forward:  f: all_gather of the input [m/t, h] -> [m, h]                  N = m h
///             g: reduce_scatter of the row-parallel output [m, h] -> [m/t, h]  N = m h
///   backward: g: all_gather of dY [m/t, h] -> [m, h]                          N = m h
///             f: all_gather of the kept input again, for the weight gradients  N = m h
///             f: reduce_scatter of the partial dX [m, h] -> [m/t, h]         N = m h
///             all_reduce of the row-parallel bias gradient (each rank summed only its
///             tokens)                                                         N = h
/// and each LayerNorm all-reduces its gamma and beta gradients [2, h] in backward, for the
/// same reason.
///
///   block:       forward  2 all_gather, 2 reduce_scatter of m h
///                backward 4 all_gather, 2 reduce_scatter of m h; 4 all_reduce, 6 h in all
///   linear pair: forward  1 all_gather, 1 reduce_scatter; backward 2 all_gather,
///                1 reduce_scatter, 1 all_reduce of h
///
/// Bus volume of the block: 10 m h x (t-1)/t + 6 h x 2(t-1)/t; 1D's is 8 m h (t-1)/t. The
/// extra 2 m h (t-1)/t is the re-gather of the two kept inputs (Megatron's code does the same).
///
/// ---- memory
/// Parameters: as 1D (the same weights are split, the same ones kept whole).
/// Activations kept for backward (elements):
///   split by tokens [m/t, h]: LN1's xhat, the attention's input, LN2's xhat, the MLP's input:
///     4 m h / t, plus LN's 1/std [m/t] twice: 2 m / t;
///   split by heads [m, h/t]: q, k, v, the context: 4 m h / t;
///   split [m, 4h/t]: the MLP's input and output of GELU: 8 m h / t;
///   the attention probabilities [b n/t, s, s]: b n s^2 / t.
///   block: 16 m h / t + b n s^2 / t + 2 m / t;   linear pair: 5 m h / t.
/// Everything is divided by t: 1D keeps (t-1)/t (4 m h + 2 m) more per rank.
#include "cost_1d_sp.hpp"

#include "cost_1d.hpp"
#include "workload_sums.hpp"

namespace tplab::model {

RankCost cost_1d_sp(const BlockShape& shape, int t, Workload workload) {
  const WorkloadSums w = workload_sums(shape, workload);
  const std::int64_t m = shape.tokens(), h = shape.h;
  RankCost cost = cost_1d(shape, t, workload);  // the parameters and the group
  cost.comm = {};

  cost.comm.forward.add(Collective::all_gather, "tp", t, w.sublayers, w.sublayers * m * h);
  cost.comm.forward.add(Collective::reduce_scatter, "tp", t, w.sublayers, w.sublayers * m * h);
  cost.comm.backward.add(Collective::all_gather, "tp", t, 2 * w.sublayers, 2 * w.sublayers * m * h);
  cost.comm.backward.add(Collective::reduce_scatter, "tp", t, w.sublayers, w.sublayers * m * h);
  cost.comm.backward.add(Collective::all_reduce, "tp", t, w.sublayers + w.layernorms,
                         w.sublayers * h + w.layernorms * 2 * h);

  cost.activation_elements -= sequence_parallel_activation_savings(shape, t, workload);
  return cost;
}

std::int64_t sequence_parallel_activation_savings(const BlockShape& shape, int t,
                                                  Workload workload) {
  const std::int64_t m = shape.tokens(), h = shape.h;
  if (workload == Workload::linear_pair) return m * h - m * h / t;  // fc1's input
  return 4 * m * h - 4 * m * h / t + 2 * m - 2 * m / t;
}

double korthikanti_activation_bytes_1d_sp(const BlockShape& shape, int t, Recompute mode) {
  const double s = static_cast<double>(shape.s), b = static_cast<double>(shape.b);
  const double h = static_cast<double>(shape.h), a = static_cast<double>(shape.heads);
  switch (mode) {
    case Recompute::none:
      return s * b * h / t * (34.0 + 5.0 * a * s / h);
    case Recompute::selective:
      return 34.0 * s * b * h / t;
    case Recompute::full:
      return 2.0 * s * b * h / t;
  }
  return 0;
}

}  // namespace tplab::model
