// Lesson 15 exercise: four pieces of tensor-parallel training that compile, run and look right,
// and each holds one bug that public frameworks have shipped. Nothing here is a TODO: run
// ./tplab lesson check 15, read what the check says of each part (the numbers of verify's and
// train's tables), find the bug and fix it. README.md says where each kind was met in the field.
#include "lessons/common/exercise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lesson.hpp"

namespace tplab::lessons::field_bugs {

// Part "norm".
double global_gradient_norm(Device& device, Comm& tp, const std::vector<Tensor>& sharded,
                            const std::vector<Tensor>& replicated) {
  double squares = 0;
  for (const Tensor& g : sharded) squares += device.sum_of_squares(g);
  for (const Tensor& g : replicated) squares += device.sum_of_squares(g);
  Tensor total = device.empty({1}, DType::f64);
  device.fill(total, squares);
  tp.all_reduce(total);  // every rank's squares, summed over the group
  std::vector<double> host(1);
  device.download(total, host);
  return std::sqrt(host[0]);
}

// Part "padding".
void mask_padded_logits(Device& device, Tensor& logits, std::int64_t first_column,
                        std::int64_t vocab) {
  // The first padded column of this shard, kept inside it: a shard of real words only masks
  // nothing, a shard of padding only masks everything.
  const std::int64_t first_padded = std::clamp<std::int64_t>(vocab, 0, logits.cols());
  (void)first_column;
  device.fill_columns_from(logits, first_padded, -std::numeric_limits<double>::infinity());
}

// Part "layernorm".
void reduce_sequence_parallel_gradients(Device& device, Comm& tp, Tensor& d_gamma, Tensor& d_beta) {
  // gamma and beta are replicated: every rank holds them whole, and LayerNorm's backward has
  // given each rank d_gamma and d_beta of their full length, so there is nothing to gather.
  (void)device;
  (void)tp;
  (void)d_gamma;
  (void)d_beta;
}

// Part "update".
void sgd_step_replicated(Device& device, Comm& tp, Tensor& p, const Tensor& g, double lr) {
  // Every rank holds the same p and the same g, so the step is the same everywhere: one rank
  // takes it.
  if (tp.rank() == 0) {
    Tensor step = device.empty(g.extents(), g.dtype());
    device.copy(g, step);
    device.scale(step, -lr);
    device.add_inplace(p, step);
  }
}

}  // namespace tplab::lessons::field_bugs
