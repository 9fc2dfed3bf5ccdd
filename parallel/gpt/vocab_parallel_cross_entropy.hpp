/// @file
/// VocabParallelCrossEntropy: the loss over logits whose vocabulary is split over a group.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/comm.hpp"
#include "device/device.hpp"
#include "scheme/placement.hpp"

namespace tplab::gpt {

/// loss = mean over the m tokens of log(sum_v exp(l_v)) - l_target, where each rank of
/// `vocab_group` holds the logits of some tokens for its block of the vocabulary (Megatron's
/// vocab-parallel cross-entropy). Per row, with every rank of the group holding the same rows:
///
///   forward:  M = all_reduce_max(max_c l)                               [rows]  (reduction 1)
///             (S, T) = all_reduce_sum(sum_c exp(l - M), l[target] or 0)  [rows, 2] (2 and 3)
///             loss_row = log S + M - T
///   backward: dl = (exp(l - M) / S - onehot(target)) / m               no communication
///
/// The maximum keeps exp from overflowing; the sum-of-exp and the target logit (which only the
/// rank owning the target contributes) travel together in one call. The logits never leave
/// their rank: 2 all-reduces of [rows] and [rows, 2] instead of gathering [rows, V].
///
/// A vocabulary padded up to a multiple of its parts (gpt::padded_vocab) has logits for ids no
/// token has; mask_ids_from(V) sets them to -infinity before the maximum, so they take no
/// probability (exp(-inf - M) = 0) and get a gradient of exactly 0, and the loss is that of
/// the unpadded vocabulary.
class VocabParallelCrossEntropy {
 public:
  /// `logits`: the rows (tokens) and columns (ids) of the [m, V] logits this rank holds;
  /// `tokens`: m, the count the loss is averaged over.
  VocabParallelCrossEntropy(Device& device, Comm& vocab_group, const BlockRange& logits,
                            std::int64_t tokens);

  /// This rank's logits and the targets of all m tokens -> the loss of each of its rows (the
  /// same on every rank of the group), on the host in f64.
  std::vector<double> forward(const Tensor& logits, std::span<const std::int64_t> targets);
  /// The gradient of the mean loss with respect to this rank's logits.
  Tensor backward();
  /// Lets go of the logits and row statistics kept for backward.
  void forget() {
    logits_ = Tensor();
    max_ = Tensor();
    sums_ = Tensor();
  }
  /// Ids from `vocab` on are padding: masked out of the softmax from the next forward on.
  void mask_ids_from(std::int64_t vocab) { vocab_in_use_ = vocab; }

  /// The rows (tokens) and columns (ids) of the logits this rank holds.
  const BlockRange& block() const { return block_; }
  /// The ranks that share this rank's rows, each holding another part of the vocabulary.
  Comm& vocab_group() const { return group_; }

 private:
  Device& device_;
  Comm& group_;
  BlockRange block_;
  std::int64_t tokens_;
  std::int64_t vocab_in_use_ = -1;     // the first padded id, or -1: none
  std::vector<std::int64_t> targets_;  // this rank's rows' targets, shifted to its columns
  Tensor logits_, max_, sums_;         // kept for backward
};

}  // namespace tplab::gpt
