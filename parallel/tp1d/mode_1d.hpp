/// @file
/// Mode1D: how a 1D block lays out its activations and issues its collectives.
#pragma once

namespace tplab::tp1d {

/// The two switches of 1D tensor parallelism.
struct Mode1D {
  /// Sequence parallelism (Korthikanti et al. 2022): the activations between sublayers
  /// (the block's input and output, LayerNorm, residuals) are split by tokens, rank r holding
  /// rows [r*m/t, (r+1)*m/t); operator f becomes all-gather forward / reduce-scatter backward
  /// and operator g reduce-scatter forward / all-gather backward. Off: Megatron's replicated
  /// activations with all-reduces.
  bool sequence_parallel = false;
  /// Start the backward collectives that have independent work beside them and wait only when
  /// their result is needed (the sum of dX during the weight gradients of the column-parallel
  /// linears; with sequence parallelism also the re-gather of the input during dX, and the
  /// row-parallel bias gradient's all-reduce during the row-parallel matmuls).
  bool overlap = false;
};

}  // namespace tplab::tp1d
