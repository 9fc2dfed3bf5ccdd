/// @file
/// The cost model of 2.5D tensor parallelism, derived from parallel/tp2p5d.
///
/// Notation: b batch, s sequence, h hidden, n heads, m = b s tokens; d depth layers of q x q
/// meshes. The tokens are split d q ways: depth layer k runs the 2D block (see cost_2d.cpp) on
/// its own b/d sequences, so each rank holds r = m/(d q) token rows.
///
/// ---- communication
/// The mesh of each layer communicates as 2D does with r = m/(d q) (groups "row", "column").
/// Then every parameter gradient, reduced within the layer, is all-reduced over the d layers
/// (group "depth"), one call per gradient tensor, each the size of this rank's block:
///   backward: all_reduce on depth, calls = 2 linears + 2 LayerNorms (block: 16; pair: 4),
///             elements = weights / q^2 + (out + 2 h layernorms) / q
///             (block: 12 h^2 / q^2 + 13 h / q; linear pair: 8 h^2 / q^2 + 5 h / q).
/// Per rank per block, forward + backward:
///   elements:  (27 m h / d + 36 h^2 + 8 m / d + 13 h) / q + 12 h^2 / q^2 + 13 h / q
///   bus:       (27 m h / d + 36 h^2) / q + 2(q-1)/q^2 (8 m / d + 13 h)
///              + 2(d-1)/d (12 h^2 / q^2 + 13 h / q)
///
/// ---- memory
/// Parameters as 2D (replicated over depth). Activations as 2D with r = m/(d q) rows and
/// b/(d q) sequences per rank.
#include "cost_2p5d.hpp"

#include "cost_2d.hpp"
#include "workload_sums.hpp"

namespace tplab::model {

RankCost cost_2p5d(const BlockShape& shape, int q, int d, Workload workload) {
  RankCost cost = mesh_cost(shape, q, shape.b / (static_cast<std::int64_t>(d) * q), workload);
  const WorkloadSums w = workload_sums(shape, workload);
  cost.comm.backward.add(Collective::all_reduce, "depth", d, w.parameter_tensors(),
                         cost.parameter_elements);
  // rank = j + q i + q^2 k; the colors of parallel/grid/grid_2p5d.cpp and grid_2d.cpp
  const int layer = q * q;
  if (q > 1) {
    cost.groups.push_back({"row", q, [q](int rank) { return rank / q; }});
    cost.groups.push_back(
        {"column", q, [q, layer](int rank) { return rank / layer * q + rank % q; }});
  }
  if (d > 1) cost.groups.push_back({"depth", d, [layer](int rank) { return rank % layer; }});
  return cost;
}

}  // namespace tplab::model
