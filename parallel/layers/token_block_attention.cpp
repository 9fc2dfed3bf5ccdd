/// @file
/// TokenBlockAttention: the window of whole sequences around a token block, and its exchanges.
#include "layers/token_block_attention.hpp"

#include "core/error.hpp"

namespace tplab {

TokenBlockAttention::TokenBlockAttention(Device& device, Comm& token_group, std::int64_t batch,
                                         std::int64_t sequence, std::int64_t heads,
                                         std::int64_t head_dim, AttentionDropout dropout,
                                         Recompute recompute)
    : device_(device),
      token_group_(token_group),
      rows_(batch * sequence / token_group.size()),
      // the window runs from the start of the sequence of this block's first row to the end of
      // the sequence of its last row
      window_first_(token_group.rank() * rows_ / sequence * sequence),
      window_rows_(((token_group.rank() + 1) * rows_ - 1) / sequence * sequence + sequence -
                   window_first_),
      offset_(token_group.rank() * rows_ - window_first_),
      core_(device, window_rows_ / sequence, heads, head_dim,
            AttentionDropout{std::move(dropout.dropout), window_first_ / sequence, dropout.head0},
            recompute) {
  check(batch * sequence % token_group.size() == 0,
        "TokenBlockAttention: the token group must split the tokens evenly");
}

Tensor TokenBlockAttention::into_window(const Tensor& block) {
  Tensor window = device_.zeros({window_rows_, block.cols()}, block.dtype());
  Tensor rows = window.slice_rows(offset_, rows_);
  device_.copy(block, rows);
  return window;
}

Tensor TokenBlockAttention::out_of_window(const Tensor& window) {
  Tensor block = device_.empty({rows_, window.cols()}, window.dtype());
  device_.copy(window.slice_rows(offset_, rows_), block);
  return block;
}

Tensor TokenBlockAttention::gather_window(const Tensor& block) {
  // [rows, heads*d] -> [m, heads*d], blocks in token order, then the window's rows of it
  Tensor all = device_.empty({rows_ * token_group_.size(), block.cols()}, block.dtype());
  token_group_.all_gather(block, all);  // blocking: attention reads the whole window at once
  return all.slice_rows(window_first_, window_rows_);
}

Tensor TokenBlockAttention::scatter_window(const Tensor& window) {
  // this block's share of the gradient of every key (zero outside the window), summed over
  // the blocks: [m, heads*d] -> [rows, heads*d]
  Tensor all = device_.zeros({rows_ * token_group_.size(), window.cols()}, window.dtype());
  Tensor rows = all.slice_rows(window_first_, window_rows_);
  device_.copy(window, rows);
  Tensor block = device_.empty({rows_, window.cols()}, window.dtype());
  token_group_.reduce_scatter(all, block);  // blocking: the block's gradient is read at once
  return block;
}

Tensor TokenBlockAttention::forward(const Tensor& q, const Tensor& k, const Tensor& v) {
  if (local()) return core_.forward(q, k, v);
  return out_of_window(core_.forward(into_window(q), gather_window(k), gather_window(v)));
}

void TokenBlockAttention::backward(const Tensor& dctx, Tensor& dq, Tensor& dk, Tensor& dv) {
  if (local()) {
    core_.backward(dctx, dq, dk, dv);
    return;
  }
  Tensor dq_window, dk_window, dv_window;
  core_.backward(into_window(dctx), dq_window, dk_window, dv_window);
  dq = out_of_window(dq_window);
  dk = scatter_window(dk_window);
  dv = scatter_window(dv_window);
}

}  // namespace tplab
