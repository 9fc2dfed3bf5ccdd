/// @file
/// VocabParallelCrossEntropy: three reductions over the vocabulary in two calls, none backward.
#include "gpt/vocab_parallel_cross_entropy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace tplab::gpt {

VocabParallelCrossEntropy::VocabParallelCrossEntropy(Device& device, Comm& vocab_group,
                                                     const BlockRange& logits, std::int64_t tokens)
    : device_(device), group_(vocab_group), block_(logits), tokens_(tokens) {}

std::vector<double> VocabParallelCrossEntropy::forward(const Tensor& logits,
                                                       std::span<const std::int64_t> targets) {
  check(logits.rows() == block_.rows && logits.cols() == block_.cols,
        fmt::format("cross-entropy: logits {} for a block of {} x {}",
                    tplab::to_string(logits.extents()), block_.rows, block_.cols));
  targets_.assign(targets.begin() + block_.row0, targets.begin() + block_.row0 + block_.rows);
  for (std::int64_t& t : targets_) t -= block_.col0;
  logits_ = logits;
  const std::int64_t first_padded = vocab_in_use_ - block_.col0;  // in this rank's columns
  if (vocab_in_use_ >= 0 && first_padded < block_.cols) {
    device_.fill_columns_from(logits_, std::max<std::int64_t>(first_padded, 0),
                              -std::numeric_limits<double>::infinity());
  }
  max_ = device_.empty({block_.rows}, logits.dtype());
  device_.row_max(logits, max_);
  // Blocking, both: each step needs the one before it, and the loss is the end of forward.
  group_.all_reduce(max_, ReduceOp::max);  // the row maximum over the whole vocabulary
  sums_ = device_.empty({block_.rows, 2}, logits.dtype());
  device_.cross_entropy_sums(logits, max_, targets_, sums_);
  group_.all_reduce(sums_);  // sum of exp over the vocabulary; the target logit from its owner

  std::vector<double> max(static_cast<std::size_t>(block_.rows));
  std::vector<double> sums(static_cast<std::size_t>(2 * block_.rows));
  device_.download(max_, max);
  device_.download(sums_, sums);
  std::vector<double> loss(max.size());
  for (std::size_t r = 0; r < loss.size(); ++r) {
    loss[r] = std::log(sums[2 * r]) + max[r] - sums[2 * r + 1];
  }
  return loss;
}

Tensor VocabParallelCrossEntropy::backward() {
  Tensor dlogits = device_.empty(logits_.extents(), logits_.dtype());
  // d(mean loss)/dl = (softmax - onehot) / m: every term is local once M and S are known
  device_.cross_entropy_backward(logits_, max_, sums_, targets_, 1.0 / static_cast<double>(tokens_),
                                 dlogits);
  return dlogits;
}

}  // namespace tplab::gpt
