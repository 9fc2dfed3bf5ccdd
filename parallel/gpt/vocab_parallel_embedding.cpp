/// @file
/// VocabParallelEmbedding: masked lookup, the group's sum, and the scatter-add of backward.
#include "gpt/vocab_parallel_embedding.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "gpt/sinusoidal_positions.hpp"

namespace tplab::gpt {

VocabParallelEmbedding::VocabParallelEmbedding(Device& device, Comm& group, Combine combine,
                                               Tensor table, std::int64_t first_id,
                                               std::int64_t group_first_token,
                                               std::int64_t group_tokens, const BlockRange& own,
                                               std::int64_t s, std::int64_t h)
    : device_(device),
      group_(group),
      combine_(combine),
      table_(std::move(table)),
      first_id_(first_id),
      group_first_token_(group_first_token),
      group_tokens_(group_tokens),
      own_(own) {
  const std::int64_t expected_rows =
      combine == Combine::all_reduce ? group_tokens : group_tokens / group.size();
  const std::int64_t expected_first =
      group_first_token + (combine == Combine::all_reduce ? 0 : group.rank() * expected_rows);
  check(own.rows == expected_rows && own.row0 == expected_first && own.cols == table_.cols(),
        fmt::format("embedding: the group's lookups give rows {}..+{}, but this rank holds "
                    "rows {}..+{}",
                    expected_first, expected_rows, own.row0, own.rows));
  std::vector<double> pe(static_cast<std::size_t>(own.rows * own.cols));
  for (std::int64_t r = 0; r < own.rows; ++r) {
    for (std::int64_t c = 0; c < own.cols; ++c) {
      pe[static_cast<std::size_t>(r * own.cols + c)] =
          sinusoidal_position((own.row0 + r) % s, own.col0 + c, h);
    }
  }
  positions_ = device_.empty({own.rows, own.cols}, table_.dtype());
  device_.upload(pe, positions_);
}

Tensor VocabParallelEmbedding::forward(std::span<const std::int64_t> ids) {
  rows_.assign(ids.begin() + group_first_token_, ids.begin() + group_first_token_ + group_tokens_);
  for (std::int64_t& row : rows_) row -= first_id_;
  Tensor partial = device_.empty({group_tokens_, table_.cols()}, table_.dtype());
  device_.gather_rows(table_, rows_, partial);
  Tensor x = partial;
  // Blocking, both forms: the first block reads its input at once, and nothing is left to
  // compute before it.
  if (combine_ == Combine::all_reduce) {
    group_.all_reduce(x);
  } else {
    // [group tokens, features] -> this rank's [group tokens / g, features]
    x = device_.empty({own_.rows, own_.cols}, table_.dtype());
    group_.reduce_scatter(partial, x);
  }
  device_.add_inplace(x, positions_);
  return x;
}

void VocabParallelEmbedding::backward(const Tensor& dx) {
  Tensor full = dx;
  if (combine_ == Combine::reduce_scatter) {
    // [own tokens, features] -> [group tokens, features]
    full = device_.empty({group_tokens_, own_.cols}, dx.dtype());
    // Blocking: the table's gradient adds every token's row, and it is backward's last step.
    group_.all_gather(dx, full);
  }
  table_grad_ = device_.zeros(table_.extents(), dx.dtype());
  device_.scatter_add_rows(full, rows_, table_grad_);
}

}  // namespace tplab::gpt
