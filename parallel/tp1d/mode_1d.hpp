/// @file
/// Mode1D: how a 1D block lays out its activations.
#pragma once

namespace tplab::tp1d {

/// The layout of 1D tensor parallelism's activations. How the collectives are issued (started
/// early or blocking) is the ExecutionPolicy's, the same for every scheme.
struct Mode1D {
  /// Sequence parallelism (Korthikanti et al. 2022): the activations between sublayers
  /// (the block's input and output, LayerNorm, residuals) are split by tokens, rank r holding
  /// rows [r*m/t, (r+1)*m/t); operator f becomes all-gather forward / reduce-scatter backward
  /// and operator g reduce-scatter forward / all-gather backward. Off: Megatron's replicated
  /// activations with all-reduces.
  bool sequence_parallel = false;
};

}  // namespace tplab::tp1d
