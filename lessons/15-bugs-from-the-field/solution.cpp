// Lesson 15, the answer: each of the four pieces with its bug fixed, and the fix's reason.
#include <algorithm>
#include <cmath>
#include <limits>

#include "lesson.hpp"

namespace tplab::lessons::field_bugs {

// The library's version: parallel/optim/gradient_norm.cpp, gradients_counted_by, which counts
// each block of a placement on its first holder alone. The replicated tensors are added once,
// after the all-reduce: each rank holds the same copy, so each adds the same bits.
double global_gradient_norm(Device& device, Comm& tp, const std::vector<Tensor>& sharded,
                            const std::vector<Tensor>& replicated) {
  double shard_squares = 0;
  for (const Tensor& g : sharded) shard_squares += device.sum_of_squares(g);
  Tensor total = device.empty({1}, DType::f64);
  device.fill(total, shard_squares);
  tp.all_reduce(total);  // the sharded tensors, whole: each shard counted by its one holder
  std::vector<double> host(1);
  device.download(total, host);
  double squares = host[0];
  for (const Tensor& g : replicated) squares += device.sum_of_squares(g);  // once, not t times
  return std::sqrt(squares);
}

// The library's version: parallel/gpt/vocab_parallel_cross_entropy.cpp,
// VocabParallelCrossEntropy::forward. The vocabulary's V is a global column; the shard's own
// first padded column is V - first_column, which is past the shard on the ranks of real words
// only and below 0 on those of padding only.
void mask_padded_logits(Device& device, Tensor& logits, std::int64_t first_column,
                        std::int64_t vocab) {
  const std::int64_t first_padded =
      std::clamp<std::int64_t>(vocab - first_column, 0, logits.cols());
  device.fill_columns_from(logits, first_padded, -std::numeric_limits<double>::infinity());
}

// The library's version: parallel/layers/layernorm.cpp, LayerNorm::backward, whose
// sequence-parallel form all-reduces the parameter gradients over the group. Each rank's d_gamma
// and d_beta are full length but sum over its own m/t tokens only: the gradient is their sum.
void reduce_sequence_parallel_gradients(Device& device, Comm& tp, Tensor& d_gamma, Tensor& d_beta) {
  (void)device;
  tp.all_reduce(d_gamma);
  tp.all_reduce(d_beta);
}

// The library's version: parallel/optim/sharded_optimizer.cpp, ShardedOptimizer::step, which
// every rank runs on every parameter it holds. A replicated parameter is a copy per rank: each
// copy takes the step, or the copies part and the next forward mixes two models.
void sgd_step_replicated(Device& device, Comm& tp, Tensor& p, const Tensor& g, double lr) {
  (void)tp;
  Tensor step = device.empty(g.extents(), g.dtype());
  device.copy(g, step);
  device.scale(step, -lr);  // step = -lr g
  device.add_inplace(p, step);
}

}  // namespace tplab::lessons::field_bugs
