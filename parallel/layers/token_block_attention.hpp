/// @file
/// TokenBlockAttention: causal attention on one block of consecutive token rows, which may cut
/// sequences.
#pragma once

#include "comm/comm.hpp"
#include "layers/causal_attention.hpp"

namespace tplab {

/// Causal self-attention on a rank that holds whole heads but only one block of the batch's
/// token rows: rank r of `token_group` holds rows [r*rows, (r+1)*rows) of the m = b*s tokens.
///
/// When every block is whole sequences (rows a multiple of s), attention is local, as in
/// CausalAttention. When blocks cut sequences (3D at q = 3 puts 8 of the 72 tokens of 4
/// sequences of 18 on each rank), a query also needs the keys and values of earlier rows of its
/// sequence, which other ranks hold. Then:
///
///   forward:  K, V [rows, heads*d] -> all_gather over token_group -> [m, heads*d]
///             the sequences this block touches form a window of whole sequences; this block's
///             queries are placed in it, the other rows left zero, and CausalAttention runs on
///             the window; this block's rows of its output are the result
///   backward: dctx placed in the window the same way (zero elsewhere) -> CausalAttention's
///             backward -> dq of this block's rows; dK, dV over the window are this block's
///             queries' share only -> reduce_scatter over token_group sums every block's share
///
/// A zero output gradient gives zero to every gradient, so the padded rows add nothing; they
/// only cost compute (at most one extra sequence on each side of the block).
class TokenBlockAttention {
 public:
  /// `batch` and `sequence` are global; `heads` is the number of whole heads of `head_dim`
  /// features this rank holds. token_group.size() must divide batch * sequence. The window's
  /// first sequence replaces dropout.batch0.
  TokenBlockAttention(Device& device, Comm& token_group, std::int64_t batch, std::int64_t sequence,
                      std::int64_t heads, std::int64_t head_dim, AttentionDropout dropout = {},
                      Recompute recompute = Recompute::none);

  /// q, k, v [rows, heads*d] -> ctx [rows, heads*d].
  Tensor forward(const Tensor& q, const Tensor& k, const Tensor& v);
  /// dctx -> dq, dk, dv (allocated here, same layout as q, k, v).
  void backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv);
  /// True when this block is whole sequences and attention runs without communication. Every
  /// rank agrees: both ends of every block fall on sequence boundaries exactly when s divides
  /// the rows of a block.
  bool local() const { return window_rows_ == rows_; }
  /// Lets go of what forward kept.
  void forget() { core_.forget(); }

 private:
  Tensor into_window(const Tensor& block);
  Tensor out_of_window(const Tensor& window);
  Tensor gather_window(const Tensor& block);
  Tensor scatter_window(const Tensor& window);

  Device& device_;
  Comm& token_group_;
  std::int64_t rows_;          // this block's rows
  std::int64_t window_first_;  // the window's first row in the batch
  std::int64_t window_rows_;   // whole sequences
  std::int64_t offset_;        // this block's first row inside the window
  CausalAttention core_;
};

}  // namespace tplab
